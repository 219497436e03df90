class Plugin:
    def __init__(self, name):
        self.name = name


from p.a import NAME  # noqa: E402
from p.a import HOST  # noqa: E402

DEFAULT = Plugin(NAME)
HOST.plugins.append(DEFAULT)
