from app.registry import Registry


class Model:
    def _make():
        return Registry("model")

    registry = _make()
