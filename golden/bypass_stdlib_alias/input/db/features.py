import operator

from db.base import Database


class DatabaseFeatures:
    # Read while the class body runs, at import time.
    can_share_in_memory_db = Database.sqlite_version_info >= (3, 8, 3)
    first = operator.itemgetter(0)
