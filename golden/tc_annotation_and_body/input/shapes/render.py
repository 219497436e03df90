"""Rendering helpers."""
from shapes.canvas import Canvas


def blank(label: str) -> Canvas:
    """Returns a new canvas holding `label`."""
    canvas = Canvas()
    canvas.items.append(label)
    return canvas


def draw(canvas: Canvas, label: str) -> None:
    canvas.items.append(label)
