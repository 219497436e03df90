from lint.config import severity


class StyleRule:
    name = "style"

    def check(self, node):
        return severity(self.name), node
