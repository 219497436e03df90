def draw(x):
    return f"<{x}>"


def scale(xs):
    return [x * 2 for x in xs]


from p.a import UNIT, area  # noqa: E402

FACTOR = area(UNIT)
