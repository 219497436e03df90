def d_fn():
    return helper_t()


from pkg.t import helper_t
