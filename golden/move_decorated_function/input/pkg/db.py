"""A toy database."""
from pkg.api import Endpoint

TABLES = {"users": {1: "ada"}, "orders": {7: "tea"}}


class HealthEndpoint(Endpoint):
    path = "/health"


def lookup(table, key):
    return TABLES[table].get(key)
