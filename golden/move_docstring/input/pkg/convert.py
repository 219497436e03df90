"""Conversion between units."""
from pkg.units import Unit

FACTORS = {"m": 1.0, "km": 1000.0, "cm": 0.01}


class Metre(Unit):
    symbol = "m"


def to_base(value, unit):
    return value * FACTORS[unit]
