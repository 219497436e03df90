from app.registry import Registry


class BaseManager:
    def __init__(self):
        self.registry = Registry("managers")

    @classmethod
    def from_queryset(cls, queryset_class):
        return type(cls.__name__ + "FromQuerySet", (cls,), {"queryset": queryset_class})


class QuerySet:
    pass


class Manager(BaseManager.from_queryset(QuerySet)):
    pass


objects = Manager()


class Model:
    pass
