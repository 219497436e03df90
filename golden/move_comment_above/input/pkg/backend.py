"""The slow backend behind the cache."""
from pkg.cache import Cache


class ShortCache(Cache):
    ttl = 5


def fetch(key):
    return f"value-of-{key}"
