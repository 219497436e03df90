from functools import wraps

from app.perms import check_perm


def login_required(view):
    check_perm(view.__name__)

    @wraps(view)
    def check(request, *args, **kwargs):
        return view(request, *args, **kwargs)

    return check
