"""capture(): trace a callable into an ExirExportedProgram.

The three first-party imports below are only used inside capture() and
_capture_legacy_do_not_use() and in their return annotations. At module scope
they close the loop verifier -> capture/__init__ -> _capture -> program/_program
-> verifier.
"""

from typing import TYPE_CHECKING, Callable, Optional

from exir.capture._config import CaptureConfig

if TYPE_CHECKING:
    from exir.program import ExirExportedProgram


def _trace(f: Callable, args: tuple) -> list[str]:
    """Stand-in for tracing: the operator names a call would record."""
    return [f"aten.{f.__name__}"] * len(args)


def capture(f: Callable, args: tuple, config: Optional[CaptureConfig] = None) -> "ExirExportedProgram":
    # Deferred: import cycle capture/_capture -> program/__init__ -> program/_program -> capture/__init__ -> capture/_capture
    from exir.program import ExirExportedProgram, _transform
    config = config or CaptureConfig()
    ops = _trace(f, args)
    if config.enable_aot:
        return _transform(ExirExportedProgram(ops, after_to_edge_passes=False))
    return ExirExportedProgram(ops, after_to_edge_passes=False)


def _capture_legacy_do_not_use(f: Callable, args: tuple) -> "ExirExportedProgram":
    # Deferred: import cycle capture/_capture -> program/__init__ -> program/_program -> capture/__init__ -> capture/_capture
    from exir.program import ExirExportedProgram
    # Deferred: import cycle capture/_capture -> program/_program -> capture/__init__ -> capture/_capture (and 2 more loops)
    from exir.program._program import HackedUpExportedProgramDONOTUSE
    # Deferred: import cycle capture/_capture -> verification/verifier -> capture/__init__ -> capture/_capture
    from exir.verification.verifier import EXIRATenDialectVerifierBase
    ops = _trace(f, args)
    EXIRATenDialectVerifierBase()(ops)
    return ExirExportedProgram(HackedUpExportedProgramDONOTUSE(ops).ops, after_to_edge_passes=False)
