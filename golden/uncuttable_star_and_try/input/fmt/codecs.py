"""Codec lookup."""
from fmt.formats import *  # noqa: F403


def lookup(name):
    return {"json": JSON, "csv": CSV}[name]  # noqa: F405
