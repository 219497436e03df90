"""Plugins and their registry."""
from p.b import register  # the registry lives in p.b


class Base:
    """What every plugin derives from."""

    name = "base"


@register
class Local(Base):
    name = "local"
