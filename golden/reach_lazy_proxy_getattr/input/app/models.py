from app.registry import Registry


def new_method_proxy(func):
    def inner(self, *args):
        if self._wrapped is None:
            self._setup()
        return func(self._wrapped, *args)

    return inner


class LazyRegistry:
    _wrapped = None

    def _setup(self):
        self._wrapped = Registry("lazy")

    __getattr__ = new_method_proxy(getattr)


def lazy_registry():
    return LazyRegistry()


registry = lazy_registry()
LABEL = registry.name.upper()


class Model:
    pass
