from k.base import clamp

WIDTH = clamp(None)
