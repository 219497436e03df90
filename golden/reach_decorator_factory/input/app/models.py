from app.registry import Registry


class Model:
    pass


def hook(name):
    def deco(fn):
        fn()
        return fn

    return deco


@hook("startup")
def setup():
    Registry.add("setup")
