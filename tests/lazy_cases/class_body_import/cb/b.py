from cb.a import get

value = 1
