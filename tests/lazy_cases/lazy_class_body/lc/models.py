lazy from lc.fields import Field


class Model:
    name = Field()


def make():
    return Model()
