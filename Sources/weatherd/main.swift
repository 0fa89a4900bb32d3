print("weatherd")
