import functools

from app import plugins


# Wraps a hook so that it runs once.
@functools.lru_cache(maxsize=None)
def once(name):
    return name.upper()


def cached(fn):
    return functools.cache(fn)


HOOKS = plugins.collect()
