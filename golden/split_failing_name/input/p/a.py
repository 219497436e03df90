X = 1
from p.b import BASE, helper  # both from p.b


class Child(BASE):
    pass


def use():
    return helper(1)
