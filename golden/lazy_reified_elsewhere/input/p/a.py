from p.b import helper

X = 1


def f():
    return helper(1)
