from pkg.b import B_SCALE
from pkg.c import C_SCALE

TOTAL = B_SCALE * C_SCALE


def area(x):
    return x * TOTAL
