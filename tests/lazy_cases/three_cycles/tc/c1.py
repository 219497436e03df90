from tc.c2 import LIMIT

DOUBLE = LIMIT * 2
