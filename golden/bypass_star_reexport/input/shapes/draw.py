from shapes import Circle

DEFAULT = Circle()


def render(shape):
    return f"<{type(shape).__name__}>"
