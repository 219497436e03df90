from ir import helper


class Engine:
    run = staticmethod(helper)
