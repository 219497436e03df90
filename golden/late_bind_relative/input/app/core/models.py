DEFAULT = "model"

from ..util.format import render


def show(x):
    return render(x)


def show_all(xs):
    return [render(x) for x in xs]


def show_twice(x):
    return render(render(x))
