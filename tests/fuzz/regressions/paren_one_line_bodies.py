from pkg.b import (
    helper,  # h
    Base,
)

def f(): return helper(1)
def g(b: Base): pass
