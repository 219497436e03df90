"""Money amounts in several currencies."""
from pkg.fx import rate


class Money:
    def __init__(self, amount, currency="EUR"):
        self.amount = amount
        self.currency = currency

    @staticmethod
    def convert(amount, source, target):
        return amount * rate(source, target)

    @classmethod
    def from_usd(cls, amount):
        return cls(amount * rate("USD", "EUR"))
