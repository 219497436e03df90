"""Wire encoding."""
from pkg.client import Client


class RecordingClient(Client):
    pass


def encode(message):
    return repr(message).encode()
