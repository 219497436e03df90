from p.b import register

register.calls = 0  # read at import time, above Base: the import cannot move below it


class Base:
    name = "base"


@register
class Local(Base):
    name = "local"
