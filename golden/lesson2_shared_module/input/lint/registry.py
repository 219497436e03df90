from lint.rules.imports import ImportRule
from lint.rules.naming import NamingRule
from lint.rules.style import StyleRule

RULES = [ImportRule(), NamingRule(), StyleRule()]


def all_rules():
    return list(RULES)
