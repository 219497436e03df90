from p.a import X


class BASE:
    pass


def limit():
    return X + 1
