print("token-refresh: not built yet")
