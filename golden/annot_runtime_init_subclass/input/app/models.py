from app.base import Record
from app.prices import Price


class Item(Record):
    price: Price
    name: str
