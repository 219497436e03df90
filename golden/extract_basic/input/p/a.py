"""Settings and the registry."""
from p import b

# How many slots a registry has.
LIMIT = 10
NAMES = ("x", "y")


def limit_twice():
    return LIMIT * 2


REGISTRY = b.make_registry()
