"""Dialect verifiers."""
from exir.capture._config import EdgeCompileConfig


class VerifierBase:
    def check(self, program):
        return program is not None


class _EdgeVerifier(VerifierBase):
    def __init__(self):
        self.config = EdgeCompileConfig()


DEFAULT_VERIFIER = _EdgeVerifier()
