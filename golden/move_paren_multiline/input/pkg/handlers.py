"""Request handlers."""
from pkg.server import Server


class LoggingServer(Server):
    log = []


def handle_get(path):
    return ("GET", path)


def handle_post(path, body):
    return ("POST", path, body)
