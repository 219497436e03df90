from app.lazy import SimpleLazyObject


def lazy_text(text, upper=False):
    def _make():
        return text.upper() if upper else text

    return SimpleLazyObject(_make)


WORD = lazy_text("index")
