from __future__ import annotations

X = 1
from p.b import helper


def g(cb: helper) -> int:
    return helper(1) + helper(2)


def h():
    return helper(3)


def k():
    return helper(4)


def l():
    return helper(5)
