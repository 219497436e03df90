"""Rendering helpers."""
from typing import TYPE_CHECKING

from shapes.canvas import Canvas

if TYPE_CHECKING:
    from shapes.palette import Palette


def draw(canvas: Canvas, palette: "Palette") -> Canvas:
    canvas.items.append(palette.colors[0])
    return canvas
