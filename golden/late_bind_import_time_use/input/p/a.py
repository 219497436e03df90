X = 1
from p.b import helper


class Widget:
    render = staticmethod(helper)


def g():
    return helper(1) + helper(2)


def h():
    return helper(3)


def k():
    return helper(4)
