"""Schemas and validators built from them."""
from pkg.rules import check


class Schema:
    required = ()


def make_validator(schema):
    check(schema)

    def validate(value):
        return check(value) and all(k in value for k in schema.required)

    return validate
