REGISTRY = {}


def register(cls):
    REGISTRY[cls.name] = cls
    return cls


from p.a import Base  # noqa: E402


@register
class Remote(Base):
    name = "remote"
