from dl.a import f


def g():
    return 1
