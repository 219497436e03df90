from pkg.t import helper_t

X = helper_t()


def fact():
    return X
