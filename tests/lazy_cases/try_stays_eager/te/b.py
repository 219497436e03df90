from te.a import run


def helper():
    return 1
