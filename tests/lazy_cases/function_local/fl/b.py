import fl.a

B = 1


def g():
    return fl.a.f
