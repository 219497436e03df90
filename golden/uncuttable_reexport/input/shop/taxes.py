from shop.orders import Order

RATE = 0.2


def vat(amount):
    return amount * RATE


class TaxedOrder(Order):
    pass
