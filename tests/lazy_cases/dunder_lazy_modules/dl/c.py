import dl.b
__lazy_modules__ = ["dl.a"]
from dl.a import f
