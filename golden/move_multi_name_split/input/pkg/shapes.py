"""Shapes and the functions that render them."""
from pkg.render import draw_circle, draw_square


class Shape:
    name = "shape"


def render_circle(radius):
    return draw_circle(radius)


def render_square(side):
    return draw_square(side)
