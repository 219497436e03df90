from app.registry import Registry


class override:
    def __init__(self, **options):
        self.options = options

    def __call__(self, cls):
        cls.registry = Registry("override")
        return cls


@override(debug=True)
class Handler:
    pass


class Model:
    pass
