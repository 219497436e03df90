from app.registry import Registry


class Model:
    pass


def make_checker():
    class _Checker:
        def __init__(self):
            self.registry = Registry()

    ret = _Checker
    ret = ret()
    return ret


CHECKER = make_checker()
