from app.ops import combine


class Number:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Number(combine(self, other))

    def __eq__(self, other):
        return isinstance(other, Number) and other.v == self.v

    def __hash__(self):
        return hash(self.v)


ONE = Number(1)
TWO = ONE + ONE
NAMES = {TWO: "two"}
