from lint.config import severity


class NamingRule:
    name = "naming"

    def check(self, node):
        return severity(self.name), node
