from hooks import handler

TABLE = {"default": handler}


def run(event):
    return TABLE["default"](event)
