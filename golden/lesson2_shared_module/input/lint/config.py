"""Lint configuration."""
from lint.registry import all_rules

LEVELS = {"naming": "error"}


def severity(rule_name):
    return LEVELS.get(rule_name, "warning")


def enabled_rules():
    return [rule for rule in all_rules() if severity(rule.name) != "off"]
