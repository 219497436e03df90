from dataclasses import dataclass, field

from . import render

SCALE = 2


class Base:
    def scaled(self, x):
        return x * SCALE


@dataclass
class Point(Base):
    x: int = 0
    tags: list = field(default_factory=list)


CANVAS = render.make_canvas()
