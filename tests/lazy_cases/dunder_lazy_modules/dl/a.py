__lazy_modules__ = ["dl.b"]

from dl.b import g


def f():
    return g()
