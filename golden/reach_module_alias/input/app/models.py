from app.registry import Registry


class Model:
    pass


def build():
    return Registry()


make = build
DEFAULT = make()
