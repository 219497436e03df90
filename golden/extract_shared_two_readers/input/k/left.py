from k.base import DEFAULT

WIDTH = DEFAULT + 1
