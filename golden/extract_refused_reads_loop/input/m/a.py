from m import b

LIMIT = b.BASE + 1
