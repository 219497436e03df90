from p.a import LIMIT

DEFAULT = [0] * LIMIT


def make_registry():
    return {"size": LIMIT}
