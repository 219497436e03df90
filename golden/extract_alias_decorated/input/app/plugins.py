from app.hooks import once as run_once  # the shared hook

FIRST = run_once("first")


def collect():
    return [FIRST]
