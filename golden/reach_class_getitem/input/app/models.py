from app.registry import Registry


class Model:
    def __class_getitem__(cls, item):
        Registry.add(item)
        return cls


IntModel = Model[int]
