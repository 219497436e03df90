"""Dialect verifiers for exported programs.

Importing ``exir.capture._config`` runs ``exir/capture/__init__.py`` first,
which loads ``_capture`` and, through it, ``exir.program`` and this module
again.
"""

from typing import Optional

from exir.capture._config import EdgeCompileConfig

_REGISTERED_DIALECTS: dict[str, type] = {}


class EXIRATenDialectVerifierBase:
    """Checks that every operator in a graph belongs to the ATen dialect."""

    dialect = "OLD_EXIR_ATEN"

    def __init__(self, exception_list: Optional[list[str]] = None) -> None:
        self._exception_list = list(exception_list or [])
        _REGISTERED_DIALECTS.setdefault(self.dialect, type(self))

    def allowed_op(self, op: str) -> bool:
        return op.startswith("aten.") or op in self._exception_list

    def __call__(self, ops: list[str]) -> None:
        bad = [op for op in ops if not self.allowed_op(op)]
        if bad:
            raise ValueError(f"{self.dialect}: operators not allowed: {bad}")


class EXIRATenDialectVerifier(EXIRATenDialectVerifierBase):
    """The ATen verifier used when lowering to the edge dialect."""


class _EXIREdgeDialectVerifier(EXIRATenDialectVerifierBase):
    dialect = "EDGE"

    def __init__(self, edge_compile_config: Optional[EdgeCompileConfig] = None) -> None:
        # A runtime use of EdgeCompileConfig: this runs at import time below.
        self.config = edge_compile_config or EdgeCompileConfig()
        super().__init__(self.config.exception_list)

    def allowed_op(self, op: str) -> bool:
        return op.startswith("edge.") or super().allowed_op(op)


def EXIREdgeDialectVerifier(
    edge_compile_config: Optional[EdgeCompileConfig] = None,
    class_only: bool = False,
):
    """The edge-dialect verifier class, or an instance of it."""
    if class_only:
        return _EXIREdgeDialectVerifier
    return _EXIREdgeDialectVerifier(edge_compile_config)


# Registers the EDGE dialect for load_verifier (the seed's verifier.py:378).
# It calls _EXIREdgeDialectVerifier.__init__ while this module is loading, so
# EdgeCompileConfig is needed at import time and its import cannot be deferred.
EXIREdgeDialectVerifier()
