"""Units of measure."""
from pkg.convert import to_base


class Unit:
    symbol = "?"


def normalise(value, unit):
    """Return value expressed in the base unit."""
    return to_base(value, unit)


def total(pairs):
    """Sum (value, unit) pairs in the base unit.

    Units may differ from pair to pair; each value is
    converted before it is added.
    """
    result = 0
    for value, unit in pairs:
        result += to_base(value, unit)
    return result
