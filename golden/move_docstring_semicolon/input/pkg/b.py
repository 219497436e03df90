from pkg.a import Base


class Helper(Base):
    pass


def helper(x):
    return x
