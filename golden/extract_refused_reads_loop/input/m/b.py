from m.a import LIMIT

BASE = 1
DOUBLE = LIMIT * 2
