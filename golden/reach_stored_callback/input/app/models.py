from app.lazy import Deferred, SimpleLazyObject
from app.registry import Registry, lookup


def lazy_registry(name):
    def build():
        return Registry(name)

    return SimpleLazyObject(build)


def find_default():
    return lookup("default")


registry = lazy_registry("lazy")
LABEL = registry.name.upper()
DEFAULT = Deferred("default", find_default).get()


class Model:
    pass
