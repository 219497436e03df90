"""Event handlers."""
from .events import Event


class ClickEvent(Event):
    kind = "click"


def dispatch(event):
    return f"handled {event.kind}"
