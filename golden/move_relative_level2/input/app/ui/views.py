"""User-facing views."""
from ..core.engine import run_query


class View:
    query = "select 1"

    def refresh(self):
        return run_query(self.query)
