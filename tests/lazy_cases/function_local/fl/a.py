from fl.b import B


def f():
    from fl.b import g
    return g()
