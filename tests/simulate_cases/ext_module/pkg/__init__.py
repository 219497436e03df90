from pkg import core
from pkg._json import make_encoder
__version__ = "1.0"
