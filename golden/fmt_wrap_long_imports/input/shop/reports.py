from shop.ledger import Ledger


class Summary:
    pass


def monthly_report(month):
    return month


def quarterly_report(month):
    return month


def yearly_report(month):
    return month


DEFAULT_LEDGER = Ledger()
