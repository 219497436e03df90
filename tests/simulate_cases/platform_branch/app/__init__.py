import os
import sys

from app import core

if sys.platform == "win32":
    from app.win import console
elif sys.platform.startswith("darwin"):
    from app.mac import console
else:
    CONSOLE = "tty"

if sys.version_info < (3, 8):
    from app.compat import cached_property
if os.name == "nt" and not __debug__:
    from app import win
