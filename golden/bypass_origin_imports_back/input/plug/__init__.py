from .core import Engine
from .extras import boost
