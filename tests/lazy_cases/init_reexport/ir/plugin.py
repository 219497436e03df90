from ir import Engine


def plug():
    return Engine()
