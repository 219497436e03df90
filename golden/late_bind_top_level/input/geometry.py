from shapes import UNIT

SCALE = UNIT * 2


def area(s):
    return s * s * SCALE


def perimeter(s):
    return 4 * s * SCALE
