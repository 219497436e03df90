"""Reports and how they are rendered."""
from pkg.table import format_table as fmt


class Report:
    title = "report"


def render(rows):
    return fmt(rows)
