from __future__ import annotations

from app.group import Group
from modelkit import Model


class User(Model):
    group: Group
    name: str
