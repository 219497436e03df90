from typing import TYPE_CHECKING

from app.registry import Registry


class Model:
    pass


def setup():
    return Registry()


if TYPE_CHECKING:
    DEFAULT = setup()
