from . import impl as impllib
from .impl import Thing


def impl():
    return "a factory that shadows the submodule's name"


from .user import KIND  # noqa: E402
