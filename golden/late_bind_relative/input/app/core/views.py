from .models import show


def page():
    return show(1)
