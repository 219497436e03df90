from tc.a2 import two


def one():
    return two()
