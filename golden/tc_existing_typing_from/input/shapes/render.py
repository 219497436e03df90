"""Rendering helpers."""
from typing import Optional

from shapes.canvas import Canvas


def draw(canvas: Optional[Canvas], label: str) -> Optional[Canvas]:
    if canvas is not None:
        canvas.items.append(label)
    return canvas
