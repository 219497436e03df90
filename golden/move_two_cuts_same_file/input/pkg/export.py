"""Exporters."""
from pkg.core import Document


class JsonDocument(Document):
    mime = "application/json"


def to_json(doc):
    return '{"text": %r}' % doc.text
