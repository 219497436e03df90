from app.registry import Registry


class Base:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        Registry.add(cls)


class Model(Base):
    pass
