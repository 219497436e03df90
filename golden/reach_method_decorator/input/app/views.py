from app.auth import login_required
from app.decorators import method_decorator


@method_decorator(login_required, name="dispatch")
class AdminView:
    def dispatch(self, request):
        return request


class Other:
    @method_decorator(login_required)
    def get(self, request):
        return request
