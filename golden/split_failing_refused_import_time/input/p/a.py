X = 1
from p.b import BASE, helper


class Child(BASE):
    pass


DEFAULT = helper(0)  # read at import time: helper cannot move
