print("user-profile: not built yet")
