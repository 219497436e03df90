from lc.models import make


class Field:
    pass
