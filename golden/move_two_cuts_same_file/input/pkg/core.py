"""Core document model."""
from pkg.export import to_json
from pkg.hooks import notify


class Document:
    def __init__(self, text):
        self.text = text


def save(doc):
    return to_json(doc)


def publish(doc):
    notify("published", doc)
    return doc


def archive(doc):
    notify("archived", doc)
    return to_json(doc)
