"""Rendering helpers."""
from shapes.canvas import Canvas


def draw(canvas: Canvas, label: str) -> Canvas:
    canvas.items.append(label)
    return canvas
