"""Export IR: a miniature of ExecuTorch's ``executorch.exir`` package.

Loading ``capture`` first (as the real exir/__init__.py does) is what keeps the
capture <-> program/verifier import cycle hidden on a normal ``import exir``.
"""

from exir.capture import _capture_legacy_do_not_use, capture, CaptureConfig, EdgeCompileConfig
from exir.program import ExirExportedProgram

__all__ = [
    "_capture_legacy_do_not_use",
    "capture",
    "CaptureConfig",
    "EdgeCompileConfig",
    "ExirExportedProgram",
]
