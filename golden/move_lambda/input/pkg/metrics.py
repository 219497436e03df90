"""Scoring metrics."""
from pkg.ranking import Ranker


class AscendingRanker(Ranker):
    reverse = False


def score(item):
    return len(str(item))
