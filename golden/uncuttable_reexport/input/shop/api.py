"""Public names; `Price` has always been importable from shop.orders."""
from shop.orders import Order, Price

__all__ = ["Order", "Price"]
