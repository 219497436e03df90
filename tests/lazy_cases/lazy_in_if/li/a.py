import sys

if sys.version_info >= (3, 0):
    lazy from li.b import g
else:
    from li.b import g

A = 1
