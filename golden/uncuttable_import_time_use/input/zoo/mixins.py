from zoo.base import Base


class ReprMixin:
    def __repr__(self):
        return type(self).__name__


class Tagged(Base):
    tags = ()
