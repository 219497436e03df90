from app.forms import Form


class Media:
    def __init__(self, name):
        self.name = name


def render(form):
    return isinstance(form, Form)


def collect(forms):
    return [f for f in forms if isinstance(f, Form)]


def empty():
    return Form()
