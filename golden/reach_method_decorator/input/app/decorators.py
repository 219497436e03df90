from functools import partial, update_wrapper


def _update_method_wrapper(_wrapper, decorator):
    @decorator
    def dummy(*args, **kwargs):
        pass

    update_wrapper(_wrapper, dummy)


def _multi_decorate(decorators, method):
    if hasattr(decorators, "__iter__"):
        decorators = decorators[::-1]
    else:
        decorators = [decorators]

    def _wrapper(self, *args, **kwargs):
        bound_method = partial(method.__get__(self, type(self)))
        for dec in decorators:
            bound_method = dec(bound_method)
        return bound_method(*args, **kwargs)

    for dec in decorators:
        _update_method_wrapper(_wrapper, dec)
    update_wrapper(_wrapper, method)
    return _wrapper


def method_decorator(decorator, name=""):
    def _dec(obj):
        if not isinstance(obj, type):
            return _multi_decorate(decorator, obj)
        method = getattr(obj, name)
        _wrapper = _multi_decorate(decorator, method)
        setattr(obj, name, _wrapper)
        return obj

    return _dec
