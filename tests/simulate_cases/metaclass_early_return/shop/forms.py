# Django's ModelFormMetaclass shape: the metaclass returns early for the base
# form itself (`if bases == (BaseForm,)`), so what follows runs only for the
# classes made from it.
import sys


class BaseForm:
    pass


class FormMeta(type):
    def __new__(mcs, name, bases, attrs):
        new_class = super().__new__(mcs, name, bases, attrs)
        if bases == (BaseForm,):
            return new_class
        # Not reached for Form below; reached for shop.widgets.Widget, while
        # shop.models may still be running.
        from shop.models import Field

        new_class.field = Field
        return new_class


class Form(BaseForm, metaclass=FormMeta):
    pass


def setup():
    if sys.platform != "win32":
        return
    from shop.models import Field  # Windows only: never runs here

    return Field


setup()
