from app.registry import Registry


class Model:
    pass


def instantiate(cls):
    return cls()


@instantiate
class DefaultModel:
    def __init__(self):
        self.registry = Registry()
