from p.a import X

LIMIT = X + 1


def helper(x):
    return x
