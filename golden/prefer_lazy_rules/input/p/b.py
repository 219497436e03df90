from p.a import X

LIMIT = X + 1


def helper(x):
    return x


other = 2


def fallback():
    return None


extra = 3
value = 4


def open():
    return "p.b.open"
