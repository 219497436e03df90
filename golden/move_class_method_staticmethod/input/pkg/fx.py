"""Foreign exchange rates."""
from pkg.money import Money

RATES = {("USD", "EUR"): 0.9, ("EUR", "USD"): 1.1}


class Dollars(Money):
    def __init__(self, amount):
        super().__init__(amount, "USD")


def rate(source, target):
    return 1.0 if source == target else RATES[(source, target)]
