"""Reports, rendered by pkg.b's formatters."""
import pkg.b as pb, json


class Base:
    indent = 2


def render(report):
    return pb.format_report(json.dumps(report, indent=Base.indent))


def dump(report):
    return json.dumps(report)
