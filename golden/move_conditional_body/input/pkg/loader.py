"""Loading records from files."""
import io

from pkg.formats import parse


class Loader:
    encoding = "utf-8"


def load_all(text, strict=False):
    records = []
    with io.StringIO(text) as stream:
        for line in stream:
            line = line.strip()
            if line and not line.startswith("#"):
                records.append(parse(line))
            elif strict:
                raise ValueError("empty line")
    return records
