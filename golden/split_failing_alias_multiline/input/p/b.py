class BASE:
    pass


from p.a import X

print(X)


def helper(x):
    return x
