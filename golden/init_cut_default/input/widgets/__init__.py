"""Widgets: the public API."""
from widgets.registry import Registry

VERSION = "2.1"


def default_registry():
    return Registry()
