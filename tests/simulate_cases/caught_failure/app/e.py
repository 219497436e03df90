import app.d

try:
    X = app.d.D
except Exception:
    X = None
