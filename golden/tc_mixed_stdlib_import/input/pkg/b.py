from pkg.a import Base


class Formatter(Base):
    pass


def format_report(text):
    return "report: " + text
