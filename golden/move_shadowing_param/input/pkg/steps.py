"""Pipeline steps."""
from pkg.pipeline import Stage


class UpperStage(Stage):
    name = "upper"


def transform(item):
    return str(item).upper()
