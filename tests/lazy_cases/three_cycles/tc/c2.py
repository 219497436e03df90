from tc.c1 import DOUBLE

LIMIT = 4
