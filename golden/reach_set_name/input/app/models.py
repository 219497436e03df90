from app.registry import Registry


class Field:
    def __set_name__(self, owner, name):
        Registry.add((owner, name))


class Model:
    name = Field()
