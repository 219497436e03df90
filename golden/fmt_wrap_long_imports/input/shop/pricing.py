class Discount:
    pass


class PriceList:
    pass


class TaxRule:
    pass


def round_price(x):
    return round(x, 2)
