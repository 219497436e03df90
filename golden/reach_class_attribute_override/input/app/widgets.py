from app.media import Media


class Widget:
    def __init__(self, attrs=None):
        self.attrs = attrs or {}


class TextInput(Widget):
    pass


class Select(Widget):
    def __init__(self, attrs=None, choices=()):
        super().__init__(attrs)
        self.choices = list(choices)
        self.media = Media("select")
