from store import StoreItem as Item

__all__ = ["Item", "show"]


def show(item: Item) -> str:
    return str(item.price)
