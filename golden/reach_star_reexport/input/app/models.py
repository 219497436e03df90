from app.registry import Registry

__all__ = ["Model", "Field"]


class Model:
    pass


class Field:
    def __init__(self, label):
        self.registry = Registry(label)


DEFAULT = Registry("default")
