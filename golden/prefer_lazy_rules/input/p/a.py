"""Helpers that need p.b, imported where used (helper, open)."""
import os


def one():
    from p.b import helper
    return helper(1)


def two():
    # Deferred: import cycle p.a -> p.b -> p.a
    from p.b import helper, other as oth
    return helper(oth)


def guarded():
    try:
        from p.b import fallback
    except ImportError:
        fallback = None
    return fallback


def maybe(flag):
    if flag:
        from p.b import extra
        return extra
    return None


def rebinds():
    from p.b import value
    value = value + 1
    return value


def shadows():
    from p.b import open
    return open()


def reads_open(path):
    return open(path)


def attribute(o):
    return o.helper


def own_branch(flag):
    if flag:
        from p.b import helper
        return helper(2)
    return None


def stdlib_only():
    import json
    return json.dumps(os.sep)


X = 1
