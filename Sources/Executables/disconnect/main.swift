print("disconnect: not built yet")
