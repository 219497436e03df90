try:
    from te.b import helper
except ImportError:
    helper = None


def run():
    return helper
