from exir.verifier import VerifierBase


class ExportedProgram:
    verifier_class = VerifierBase

    def __init__(self, graph):
        self.graph = graph
