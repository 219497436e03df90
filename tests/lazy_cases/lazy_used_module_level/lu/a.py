lazy from lu.b import g

x = g()


def f():
    return x
