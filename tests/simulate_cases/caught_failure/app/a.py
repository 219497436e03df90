try:
    from app.b import B
    import app.c
except ImportError:
    B = None
A = 1
