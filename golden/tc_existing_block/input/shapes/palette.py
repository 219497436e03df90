class Palette:
    colors = ("red", "green")
