"""The root of every zoo model."""
from zoo.mixins import ReprMixin


class Base(ReprMixin):
    registry = {}
