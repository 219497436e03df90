"""Low-level drawing primitives."""
from pkg.shapes import Shape


class Canvas(Shape):
    name = "canvas"


def draw_circle(radius):
    return f"circle(r={radius})"


def draw_square(side):
    return f"square(s={side})"
