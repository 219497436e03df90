import sys


class Model:
    """Evaluates each subclass's annotations (strings too) when it is made."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        scope = vars(sys.modules[cls.__module__])
        raw = vars(cls).get("__" + "annotations__", {})
        cls.fields = {k: eval(v, scope) if isinstance(v, str) else v for k, v in raw.items()}
