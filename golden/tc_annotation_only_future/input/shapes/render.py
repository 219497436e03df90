"""Rendering helpers."""
from __future__ import annotations

from shapes.canvas import Canvas


def draw(canvas: Canvas, label: str) -> Canvas:
    canvas.items.append(label)
    return canvas
