"""Bank accounts."""
from pkg.audit import log_event


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance


def open_account(owner):
    account = Account(owner)
    log_event("open", owner)
    return account


def close_account(account):
    log_event("close", account.owner)
    account.balance = 0


def rename(account, owner):
    account.owner = owner


def transfer(source, target, amount):
    source.balance -= amount
    target.balance += amount
    log_event("transfer", source.owner, target.owner, amount)
