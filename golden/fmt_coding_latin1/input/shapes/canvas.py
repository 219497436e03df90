from shapes.render import blank


class Canvas:
    def __init__(self):
        self.items = []

    blank = staticmethod(blank)
