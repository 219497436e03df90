from p.a import X


def helper(x):
    return x + X


def check():
    return X
