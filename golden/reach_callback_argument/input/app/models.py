from app.registry import Registry


class Handler:
    def __init__(self):
        self.registry = Registry("handlers")


def register(handler_class):
    return handler_class()


default_handler = register(Handler)


class Model:
    pass
