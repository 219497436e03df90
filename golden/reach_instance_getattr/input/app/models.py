from app.registry import Registry


class Model:
    pass


class LazySettings:
    def __getattr__(self, name):
        value = Registry(name).name
        setattr(self, name, value)
        return value

    def configure(self):
        return self


settings = LazySettings()


DEFAULT = Registry("default")
