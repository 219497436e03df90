from app.middleware import csrf_protect
from app.patterns import WORD


@csrf_protect
def index(request):
    return request


ROUTE = WORD.upper()
