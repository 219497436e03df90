# -*- coding: utf-8 -*-
# Sizes, in bytes.
BLOCK = 4096

from e import disk  # noqa: E402

BUFFERS = disk.count()
