from __future__ import annotations

from typing import Final, Optional

from k import left, right

DEFAULT: Final = 3


def clamp(x: Optional[int]) -> int:
    return DEFAULT if x is None else x


WIDTHS = (left.WIDTH, right.WIDTH)
