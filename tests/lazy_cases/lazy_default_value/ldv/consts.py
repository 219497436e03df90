from ldv.api import fetch

LIMIT = 10
