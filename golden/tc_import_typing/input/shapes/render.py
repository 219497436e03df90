"""Rendering helpers."""
import typing

from shapes.canvas import Canvas


def draw(canvas: Canvas, labels: typing.List[str]) -> Canvas:
    canvas.items.extend(labels)
    return canvas
