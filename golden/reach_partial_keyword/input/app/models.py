from functools import partial

from app.registry import Registry


class RoutePattern:
    def __init__(self, route):
        self.registry = Registry(route)


def _path(route, view, Pattern=None):
    return Pattern(route), view


path = partial(_path, Pattern=RoutePattern)


def index():
    return "index"


urlpatterns = [path("models/", index)]


class Model:
    pass
