from shop.forms import BaseForm, FormMeta


class Mixin:
    pass


# bases != (BaseForm,): the metaclass imports shop.models.Field.
class Widget(BaseForm, Mixin, metaclass=FormMeta):
    pass
