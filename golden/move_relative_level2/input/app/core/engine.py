"""Query engine."""
from app.ui.views import View


class DebugView(View):
    query = "select version()"


def run_query(query):
    return [query]
