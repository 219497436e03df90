from .api import Widget
from .tools import describe
