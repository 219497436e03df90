from pkg.b import helper


class Base:
    pass


def one(x):
    """Doc."""; return helper(x)


def two(x): """Also one line."""; return helper(x) + 1
