from pkg.a import area

B_SCALE = 2


def b_area(x):
    return area(x) * B_SCALE
