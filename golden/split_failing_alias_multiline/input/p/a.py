X = 1
from p.b import (  # from the base module
    BASE as Base,  # the base class
    helper as run_helper,  # used in use() only
)


class Child(Base):
    pass


def use():
    return run_helper(1)


def again():
    return run_helper(2)
