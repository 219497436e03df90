from app.registry import Registry


class Model:
    pass


def make_registry():
    return Registry()


def lookup(name, registry=make_registry()):
    return registry
