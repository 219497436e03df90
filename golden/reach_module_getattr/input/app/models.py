from app.registry import Registry


class Model:
    pass


def __getattr__(name):
    if name == "DEFAULT":
        return Registry()
    raise AttributeError(name)
