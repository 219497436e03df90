def load():
    from app.hooks import HOOKS

    return HOOKS
