from te.c import C

D = C
