from .impl import handler, with_logging

handler = with_logging(handler)

from .runner import run  # noqa: E402
