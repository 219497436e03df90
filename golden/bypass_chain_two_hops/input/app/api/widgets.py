class Widget:
    name = "widget"
