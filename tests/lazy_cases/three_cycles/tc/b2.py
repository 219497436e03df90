from tc.b1 import first


def second():
    return 2
