import typing


def schema(cls):
    """Class decorator: records the field types, as attrs.define does."""
    cls.field_types = typing.get_type_hints(cls)
    return cls


def checked(fn):
    """Function decorator: records the parameter types, as pydantic.validate_call does."""
    fn.param_types = typing.get_type_hints(fn)
    return fn
