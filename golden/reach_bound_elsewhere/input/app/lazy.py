class LazyObject:
    _wrapped = None

    def __getattr__(self, name):
        if self._wrapped is None:
            self._setup()
        return getattr(self._wrapped, name)


class SimpleLazyObject(LazyObject):
    def __init__(self, func):
        self.__dict__["_setupfunc"] = func

    def _setup(self):
        self._wrapped = self._setupfunc()
