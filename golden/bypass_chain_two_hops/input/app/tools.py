from app import Widget


class Button(Widget):
    pass


def describe(w):
    return w.name
