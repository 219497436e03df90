from pkg.b import helper, Base
import pkg.b as pb, json


def f(x: "Base") -> Base:
    """Doc."""; return helper(x) + pb.helper(1)


class C:
    def m(self):
        def inner():
            return helper(2)
        return inner()
