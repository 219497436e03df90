class CheckMessage:
    def __init__(self, msg):
        self.msg = msg


class Error(CheckMessage):
    pass


class Warning(CheckMessage):
    pass
