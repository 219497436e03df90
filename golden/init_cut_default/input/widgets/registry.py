from widgets import VERSION


class Registry:
    version = VERSION

    def __init__(self):
        self.items = {}
