from li.a import A


def g():
    return A
