X = 1
from p.b import helper, other as oth  # the helpers


def f(helper=None):
    return helper


def g():
    y = helper(1) + oth
    return [helper(v) for v in range(y)]


def h():
    return helper(2)


class C:
    def m(self):
        return self.helper + helper.attr + oth


def k():
    return helper(3)


def l():
    return helper(4)
