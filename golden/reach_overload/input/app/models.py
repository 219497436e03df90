from typing import overload

from app.registry import Registry


class Model:
    pass


@overload
def build(name: str) -> "Registry": ...


@overload
def build(name: None) -> "Registry": ...


def build(name=None):
    return Registry(name or "default")


DEFAULT = build()
