__all__ = ["Circle", "Square"]


class Circle:
    sides = 0


class Square:
    sides = 4


class _Hidden:
    pass
