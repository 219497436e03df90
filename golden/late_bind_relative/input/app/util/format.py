from ..core.models import DEFAULT

PREFIX = DEFAULT + ":"


def render(x):
    return f"<{PREFIX}{x}>"
