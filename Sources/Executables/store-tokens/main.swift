print("store-tokens: not built yet")
