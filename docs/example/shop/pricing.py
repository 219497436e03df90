"""Prices of items and orders."""

from __future__ import annotations

from shop import orders

UNIT_PRICES = {"apple": 0.5, "bread": 2.25, "coffee": 7.0}


def price_of(order: orders.Order) -> float:
    """Total price of an order, in euros."""
    if not isinstance(order, orders.Order):
        raise TypeError(f"expected an Order, got {type(order).__name__}")
    return sum(UNIT_PRICES[item] * qty for item, qty in order.lines.items())
