lazy from lf.b import helper


def setup():
    return helper()


CONFIG = setup()
