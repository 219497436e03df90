import sys

from app import helpers

if sys.version_info >= (3, 9):
    VALUE = 1
else:
    from app.compat import VALUE


def setup():
    if sys.platform == "win32":
        from app.win import console
        return console
    return None


setup()
