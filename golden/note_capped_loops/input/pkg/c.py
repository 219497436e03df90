from pkg.a import area

C_SCALE = 3


def c_area(x):
    return area(x) * C_SCALE
