class Item:
    price = 1
