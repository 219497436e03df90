import typing


class Record:
    """Reads each subclass's fields from its annotations, as pydantic does."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.fields = typing.get_type_hints(cls)
