from app.models import Item


class Price:
    amount: int = 0


def cheapest(items: list[Item]) -> Item:
    return min(items, key=lambda i: i.price.amount)


def make() -> Item:
    return Item()
