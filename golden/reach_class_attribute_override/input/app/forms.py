from app.fields import ChoiceField

action = ChoiceField()


class Form:
    fields = [action]
