from pkg import core

__version__ = "1.0"
