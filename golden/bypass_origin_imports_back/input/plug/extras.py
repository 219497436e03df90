from plug import Engine


def boost_level():
    return 2


FAST = Engine


def boost():
    return FAST()
