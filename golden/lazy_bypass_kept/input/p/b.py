from sqlite3 import dbapi2 as Database

from p.a import X

TIMEOUT = X * 5
