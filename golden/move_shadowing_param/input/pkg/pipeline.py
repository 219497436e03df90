"""A data pipeline."""
from pkg.steps import transform


class Stage:
    name = "stage"


def run(items):
    return [transform(item) for item in items]


def apply_all(items, transform):
    return [transform(item) for item in items]


def apply_with(items, *, transform=None):
    if transform is None:
        return list(items)
    return [transform(item) for item in items]
