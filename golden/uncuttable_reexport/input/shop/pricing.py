from shop.orders import Order


class Price:
    def __init__(self, value):
        self.value = value


class PricedOrder(Order):
    pass
