from app.views import AdminView

PERMS = {"dispatch", "get", "dummy"}


def check_perm(name):
    return name in PERMS


def admin_only(view):
    return isinstance(view, AdminView)


def describe():
    return AdminView.__name__


def new_view():
    return AdminView()
