"""Events and emitting them."""
from .handlers import dispatch


class Event:
    kind = "event"


def emit(event):
    return dispatch(event)
