def make_decorator(middleware_class):
    def _make_decorator():
        def _decorator(view):
            middleware = middleware_class(view)
            return middleware.wrapped()

        return _decorator

    return _make_decorator


def decorator_from_middleware(middleware_class):
    return make_decorator(middleware_class)()
