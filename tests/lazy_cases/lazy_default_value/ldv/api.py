lazy from ldv.consts import LIMIT


def fetch(n=LIMIT):
    return n
