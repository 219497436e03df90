"""Configuration objects for capture, edge lowering and the backend."""

from dataclasses import dataclass, field


@dataclass
class CaptureConfig:
    pt2_mode: bool = True
    enable_aot: bool = False


@dataclass
class EdgeCompileConfig:
    _check_ir_validity: bool = True
    exception_list: list[str] = field(default_factory=list)


@dataclass
class ExecutorchBackendConfig:
    emit_stacktrace: bool = False
