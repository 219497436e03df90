import functools

from app.registry import Registry


class Model:
    pass


def build(name):
    return Registry(name)


default_build = functools.partial(build, "default")
DEFAULT = default_build()
