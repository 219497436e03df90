# The shapes module.

from p.b import (  # drawing helpers
    draw as render,
    scale,
)

UNIT = 10


def area(side):
    return side * side * UNIT


SHAPES = [render(area(s)) for s in scale([1, 2])]
