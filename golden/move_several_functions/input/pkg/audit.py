"""Audit trail."""
from pkg.accounts import Account

EVENTS = []


class AuditedAccount(Account):
    audited = True


def log_event(kind, *details):
    EVENTS.append((kind, details))
