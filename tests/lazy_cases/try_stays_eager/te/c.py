try:
    from te.d import D
finally:
    pass

C = 1
