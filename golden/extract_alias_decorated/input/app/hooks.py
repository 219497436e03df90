import functools

from app import plugins


# Wraps a hook so that it runs once.
@functools.lru_cache(maxsize=None)
def once(name):
    return name.upper()


HOOKS = plugins.collect()
