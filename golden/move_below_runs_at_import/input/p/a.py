from p.b import make


def build():
    return make("x")


LATE = "late"

VALUE = build()  # runs at import: reads `make` through build()
