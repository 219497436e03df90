from lz.b import g

VALUE = g()
