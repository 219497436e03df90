from p.a import X

print(X)


def helper(x):
    return x


other = 2
