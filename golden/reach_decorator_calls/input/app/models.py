from app.registry import Registry


class Model:
    pass


def run_at_import(fn):
    fn()
    return fn


@run_at_import
def setup():
    Registry.add("setup")
