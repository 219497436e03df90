"""Rendering helpers."""
from shapes.canvas import Canvas


def blank(label):
    return Canvas()