from lf.a import CONFIG


def helper():
    return {}
