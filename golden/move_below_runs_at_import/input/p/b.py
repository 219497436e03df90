from p.a import LATE


def make(x):
    return x + LATE
