"""HTTP-ish endpoints."""
import functools

from pkg.db import lookup

ROUTES = {}


def route(path):
    def register(func):
        ROUTES[path] = func
        return func

    return register


class Endpoint:
    path = "/"


@functools.lru_cache(maxsize=None)
def cached_user(user_id):
    return lookup("users", user_id)


@route("/orders")
def get_order(order_id):
    return lookup("orders", order_id)
