from tc.c1 import DOUBLE

LIMIT = 4
TRIPLE = DOUBLE * 3
