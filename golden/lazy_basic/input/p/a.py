import json
from p.b import helper, Thing as T  # the helpers

X = 1


def f(x: T) -> str:
    return json.dumps(helper(x))


class C:
    def m(self):
        return T()
