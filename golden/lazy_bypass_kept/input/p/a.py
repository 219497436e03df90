from p.b import Database

X = 1


def connect(path):
    return Database.connect(path)
