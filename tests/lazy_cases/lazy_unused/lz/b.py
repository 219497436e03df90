from lz.a import f


def g():
    return 1
