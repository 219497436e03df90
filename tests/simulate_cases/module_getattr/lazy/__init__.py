def __getattr__(name):
    if name == "thing":
        from lazy.impl import thing
        return thing
    raise AttributeError(name)
from lazy import sub
