from e.sizes import BLOCK

SECTOR = BLOCK // 8


def count():
    return 2
