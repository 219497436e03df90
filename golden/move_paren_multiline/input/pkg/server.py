"""A tiny request server."""
from pkg.handlers import (
    handle_get,  # read-only requests
    handle_post,
)


class Server:
    def get(self, path):
        return handle_get(path)

    def post(self, path, body):
        return handle_post(path, body)
