from app.units import unit_of


class Shape:
    def __init__(self, name):
        self.name = name
        self.label = name + " in " + self.unit

    @property
    def unit(self):
        return unit_of(self.name)

    def describe(self):
        return self.label


SQUARE = Shape("square")
