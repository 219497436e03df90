"""A tiny shop: orders and their prices.

Import the submodule you need (``shop.orders`` or ``shop.pricing``); this
package body loads nothing itself.

``orders`` and ``pricing`` import each other. ``import shop.orders`` works,
but a script that enters through ``import shop.pricing`` fails with a
circular ImportError. ``cyclefix cycles docs/example`` shows the loop;
``cyclefix docs/example`` prints the change that breaks it.
"""
