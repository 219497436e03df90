from app import forms


class Form:
    name = forms.Field("name")
