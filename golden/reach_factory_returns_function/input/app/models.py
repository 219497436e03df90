from app.registry import Registry


class Model:
    pass


def lazy(func):
    class Proxy:
        def __init__(self, args):
            self.registry = Registry(func.__name__)
            self.args = args

    def wrapper(*args):
        return Proxy(args)

    return wrapper


def label(text):
    return text


label_lazy = lazy(label)


class Options:
    verbose_name = label_lazy("model")
