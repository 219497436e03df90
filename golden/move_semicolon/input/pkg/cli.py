"""Command-line interface."""
import os; from pkg.config import load; import sys

PROG = os.path.basename(sys.argv[0]) if sys.argv else "cli"


class Command:
    name = PROG


def main(path):
    return load(path)
