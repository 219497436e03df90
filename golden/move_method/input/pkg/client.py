"""A small protocol client."""
from pkg.codec import encode


class Client:
    def __init__(self, host="localhost"):
        self.host = host
        self.sent = []

    def send(self, message):
        payload = encode(message)
        self.sent.append(payload)
        return payload

    def close(self):
        self.sent.clear()


default_client = Client()
