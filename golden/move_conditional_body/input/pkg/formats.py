"""Record formats."""
from pkg.loader import Loader


class Latin1Loader(Loader):
    encoding = "latin-1"


def parse(line):
    key, _, value = line.partition("=")
    return key.strip(), value.strip()
