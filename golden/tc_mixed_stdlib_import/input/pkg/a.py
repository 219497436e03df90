"""Reports."""
import pkg.b as pb, json


class Base:
    indent = 2


def render(report: "pb.Formatter") -> str:
    return pb.format_report(json.dumps(report))


def shape(f: pb.Formatter) -> None:
    pass
