"""Tabular output."""
from pkg.report import Report


class TableReport(Report):
    title = "table"


def format_table(rows):
    return "\n".join(" | ".join(map(str, row)) for row in rows)
