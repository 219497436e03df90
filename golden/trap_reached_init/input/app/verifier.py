"""The seed's first attempt: the config import was moved into __init__, but the
module-level DEFAULT = Verifier() below still runs it while verifier loads."""


class Verifier:
    def __init__(self):
        from app.config import EdgeConfig

        self.config = EdgeConfig()


def check(program):
    return DEFAULT.config is not None and program is not None


DEFAULT = Verifier()
