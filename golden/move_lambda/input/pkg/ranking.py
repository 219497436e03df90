"""Ranking items."""
from pkg.metrics import score


class Ranker:
    reverse = True


def rank(items, reverse=True):
    return sorted(items, key=lambda item: score(item), reverse=reverse)
