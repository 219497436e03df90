"""The command registry."""
from pkg.commands import run

HANDLERS = {"run": run, "echo": print}


def lookup(name):
    return HANDLERS[name]
