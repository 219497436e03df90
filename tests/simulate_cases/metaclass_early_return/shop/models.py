from shop.forms import Form
import shop.widgets


class Field:
    pass


class Article(Form):
    pass
