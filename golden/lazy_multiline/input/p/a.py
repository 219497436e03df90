X = 1

if True:
    from p.b import (
        helper,
        other,
    )


def g():
    return helper(other)
