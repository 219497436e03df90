from app.verifier import check


class Program:
    def verify(self):
        return check(self)
