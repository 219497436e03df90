class Holder:
    from cb.b import value


def get():
    return Holder.value
