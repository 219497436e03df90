"""Capturing a Python callable as an exported program."""

from ._capture import _capture_legacy_do_not_use, capture
from ._config import CaptureConfig, EdgeCompileConfig, ExecutorchBackendConfig

__all__ = [
    "_capture_legacy_do_not_use",
    "capture",
    "CaptureConfig",
    "EdgeCompileConfig",
    "ExecutorchBackendConfig",
]
