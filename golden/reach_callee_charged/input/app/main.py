from app.plugins import load

ACTIVE = load()
