from tc.a1 import one


def two():
    return 2
