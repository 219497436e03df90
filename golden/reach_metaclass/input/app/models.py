from app.registry import Registry


class ModelMeta(type):
    def __new__(mcs, name, bases, ns):
        cls = super().__new__(mcs, name, bases, ns)
        Registry.add(cls)
        return cls


class Model(metaclass=ModelMeta):
    pass


class Child(Model):
    pass
