"""Validation rules."""
from pkg.schema import Schema


class UserSchema(Schema):
    required = ("name", "email")


def check(value):
    return value is not None
