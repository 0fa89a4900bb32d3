print("owm-replay")
