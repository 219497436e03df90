from typing import cast

from pkg.tree import Node


def first(items):
    return cast("Node", items[0])


def names(items):
    return [cast("list[Node]", items)[i].name for i in range(len(items))]
