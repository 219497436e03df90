from p.b import BASE

X = 1


class Child(BASE):
    pass
