from app.registry import register


def make_middleware_decorator(middleware_class):
    def _make_decorator(*m_args):
        def _decorator(view_func):
            register(view_func)

            def _wrapped_view(request):
                middleware = middleware_class(view_func, *m_args)
                return middleware.process(request)

            return _wrapped_view

        return _decorator

    return _make_decorator


def decorator_from_middleware(middleware_class):
    return make_middleware_decorator(middleware_class)()
