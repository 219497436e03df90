class EdgeCompileConfig:
    def __init__(self, strict=True):
        self.strict = strict
