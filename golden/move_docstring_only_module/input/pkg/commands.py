"""Command-line entry points."""
from pkg.registry import lookup


def run(name, *args):
    return lookup(name)(*args)
