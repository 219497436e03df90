def helper_t():
    return 1


from pkg.d import d_fn
from pkg.f import fact

Y = fact()


def call_d():
    return d_fn()


def call_d_twice():
    return d_fn() + d_fn()
