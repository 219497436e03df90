import tc.b2


def first():
    return tc.b2.second()
