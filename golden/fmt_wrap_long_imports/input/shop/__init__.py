from shop.pricing import Discount, PriceList, TaxRule, round_price
from shop.orders import Order
