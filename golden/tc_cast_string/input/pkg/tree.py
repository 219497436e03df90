from pkg.walk import first


class Node:
    name = "root"


ROOT = first([Node()])
