from app.registry import Registry


class Model:
    pass


def setup():
    return Registry()


try:
    DEFAULT = setup()
except ImportError:
    DEFAULT = None
