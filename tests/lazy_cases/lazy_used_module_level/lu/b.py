from lu.a import f


def g():
    return 2
