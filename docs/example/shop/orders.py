"""Orders placed in the shop."""

from dataclasses import dataclass, field

from shop.pricing import price_of


@dataclass
class Order:
    """An order: item names and their quantities."""

    customer: str
    lines: dict[str, int] = field(default_factory=dict)

    def add(self, item: str, quantity: int = 1) -> None:
        self.lines[item] = self.lines.get(item, 0) + quantity

    def total(self) -> float:
        return price_of(self)

    def receipt(self) -> str:
        """One line per item, then the total."""
        lines = [f"{qty} x {item}" for item, qty in sorted(self.lines.items())]
        return "\n".join(lines + [f"total: {price_of(self):.2f} EUR"])
