from lint.config import severity


class ImportRule:
    name = "imports"

    def check(self, node):
        return severity(self.name), node
