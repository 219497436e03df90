from g.a import COUNT

USERS = [COUNT]
