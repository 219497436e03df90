from app.registry import Registry


class Model:
    @staticmethod
    def _default_registry():
        return Registry("static")

    registry = _default_registry()

    @classmethod
    def create(cls):
        return cls(), Registry("class")


DEFAULT = Model.create()
