class Middleware:
    def __init__(self, get_response, *args):
        self.get_response = get_response
        self.args = args

    def process(self, request):
        return self.get_response(request)
