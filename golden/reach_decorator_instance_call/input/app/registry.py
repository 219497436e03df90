from app.models import Model


class Registry:
    items = []

    def __init__(self, name="default"):
        self.name = name

    @classmethod
    def add(cls, item):
        cls.items.append(item)


def describe(model):
    return Model.__name__ + ":" + str(model)


def validate(model):
    return isinstance(model, Model)
