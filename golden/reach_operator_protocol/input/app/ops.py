from app.numbers import Number


def combine(a, b):
    return a.v + b.v


def zero():
    return Number(0)


def scale(x, k):
    return Number(x.v * k)


def total(values):
    result = Number(0)
    for v in values:
        result = result + v
    return result
