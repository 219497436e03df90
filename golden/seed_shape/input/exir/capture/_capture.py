"""capture(): trace a callable into an ExirExportedProgram.

The three first-party imports below are only used inside capture() and
_capture_legacy_do_not_use() and in their return annotations. At module scope
they close the loop verifier -> capture/__init__ -> _capture -> program/_program
-> verifier.
"""

from typing import Callable, Optional

from exir.capture._config import CaptureConfig
from exir.program import ExirExportedProgram, _transform
from exir.program._program import HackedUpExportedProgramDONOTUSE
from exir.verification.verifier import EXIRATenDialectVerifierBase


def _trace(f: Callable, args: tuple) -> list[str]:
    """Stand-in for tracing: the operator names a call would record."""
    return [f"aten.{f.__name__}"] * len(args)


def capture(f: Callable, args: tuple, config: Optional[CaptureConfig] = None) -> ExirExportedProgram:
    config = config or CaptureConfig()
    ops = _trace(f, args)
    if config.enable_aot:
        return _transform(ExirExportedProgram(ops, after_to_edge_passes=False))
    return ExirExportedProgram(ops, after_to_edge_passes=False)


def _capture_legacy_do_not_use(f: Callable, args: tuple) -> ExirExportedProgram:
    ops = _trace(f, args)
    EXIRATenDialectVerifierBase()(ops)
    return ExirExportedProgram(HackedUpExportedProgramDONOTUSE(ops).ops, after_to_edge_passes=False)
