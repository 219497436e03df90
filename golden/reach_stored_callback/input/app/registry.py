from app.models import Model


class Registry:
    def __init__(self, name="default"):
        self.name = name


def lookup(name):
    return Registry(name)


def describe(model):
    return Model.__name__ + ":" + str(model)


def validate(model):
    return isinstance(model, Model)


def create():
    return Model()
