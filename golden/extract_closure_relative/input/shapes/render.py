from .core import Point

ORIGIN = Point()


def make_canvas():
    return [ORIGIN]
