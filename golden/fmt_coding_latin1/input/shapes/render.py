# -*- coding: latin-1 -*-
"""Rendering helpers."""
from shapes.canvas import Canvas

DEFAULT_LABEL = "café"


def blank(label=DEFAULT_LABEL):
    canvas = Canvas()
    canvas.items.append(label)
    return canvas
