from pkg.d import d_fn
from pkg.f import fact


def test_d():
    assert d_fn() == fact()
