from ir.core import Engine
from ir.util import helper
