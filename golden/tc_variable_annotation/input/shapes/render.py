"""Rendering state."""
from shapes.canvas import Canvas


class Renderer:
    target: Canvas

    def draw(self, label: str) -> None:
        self.target.items.append(label)


current: Canvas


def draw(label: str) -> None:
    Renderer().draw(label)
