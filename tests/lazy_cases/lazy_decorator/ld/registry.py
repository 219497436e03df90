from ld.app import handler

HANDLERS = []


def register(f):
    HANDLERS.append(f)
    return f
