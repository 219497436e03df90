"""A read-through cache."""
import time

# The backend is only needed on a cache miss.
from pkg.backend import fetch  # network call

_store = {}


class Cache:
    ttl = 60


def get(key):
    hit = _store.get(key)
    if hit is not None and time.monotonic() - hit[0] < Cache.ttl:
        return hit[1]
    value = fetch(key)
    _store[key] = (time.monotonic(), value)
    return value
