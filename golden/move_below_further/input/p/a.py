from p.b import Plugin

NAME = "a"


class Host:
    plugins = []


HOST = Host()
HOST.plugins.append(Plugin(NAME))
