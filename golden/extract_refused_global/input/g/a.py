from g import b

COUNT = 0


def bump():
    global COUNT
    COUNT += 1


USERS = b.USERS
