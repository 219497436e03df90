"""Notification hooks."""
from pkg.core import Document

SENT = []


class WatchedDocument(Document):
    watched = True


def notify(event, doc):
    SENT.append((event, doc))
