from sqlite3 import dbapi2 as Database

from db.features import DatabaseFeatures


class DatabaseWrapper:
    Database = Database
    features_class = DatabaseFeatures
