from .geometry import *
from .draw import render
