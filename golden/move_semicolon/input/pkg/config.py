"""Configuration loading."""
from pkg.cli import Command


class ConfigCommand(Command):
    name = "config"


def load(path):
    return {"path": path}
