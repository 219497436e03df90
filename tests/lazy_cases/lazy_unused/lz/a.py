lazy from lz.b import g


def f():
    return g()
