from app.registry import Registry


class Middleware:
    def __init__(self, view):
        self.registry = Registry("middleware")
        self.view = view


def make_middleware_decorator(middleware_class):
    def _make_decorator(*m_args):
        def _decorator(view_func):
            return middleware_class(view_func, *m_args)

        return _decorator

    return _make_decorator


def decorator_from_middleware(middleware_class):
    return make_middleware_decorator(middleware_class)()


protect = decorator_from_middleware(Middleware)


@protect
def index():
    return "index"


class Model:
    pass
