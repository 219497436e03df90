from pkg.b import counter


class Base:
    pass


def bump():
    global counter
    counter = counter + 1
    return counter
