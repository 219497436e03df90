from app.widgets import Select, TextInput


class Field:
    widget = TextInput

    def __init__(self, widget=None):
        widget = widget or self.widget
        if isinstance(widget, type):
            widget = widget()
        self.widget = widget


class ChoiceField(Field):
    widget = Select
