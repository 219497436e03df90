from app.user import User


class Group:
    pass


def owner() -> User:
    return User()


def members(group: Group) -> list[User]:
    return [User()]
