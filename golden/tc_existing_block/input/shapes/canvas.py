from shapes.render import draw


class Canvas:
    def __init__(self):
        self.items = []

    draw = draw
