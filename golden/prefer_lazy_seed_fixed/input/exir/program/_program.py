"""ExirExportedProgram and the passes that transform it."""

from dataclasses import dataclass, field
from typing import Optional

from exir.capture._config import EdgeCompileConfig
from exir.verification.verifier import EXIRATenDialectVerifier


class ExirExportedProgram:
    """A captured program plus the state of its lowering."""

    def __init__(self, ops: list[str], after_to_edge_passes: bool) -> None:
        self.ops = list(ops)
        self.after_to_edge_passes = after_to_edge_passes

    def to_edge(self, config: Optional[EdgeCompileConfig] = None) -> "ExirExportedProgram":
        config = config or EdgeCompileConfig()
        if config._check_ir_validity:
            EXIRATenDialectVerifier(config.exception_list)(self.ops)
        return ExirExportedProgram([op.replace("aten.", "edge.", 1) for op in self.ops], True)


@dataclass
class EdgeProgramManager:
    """Programs lowered to the edge dialect, with the config that lowered them.

    The default_factory is evaluated when this class is created, so _program.py
    needs EdgeCompileConfig at import time (as the real _program.py does): its
    exir.capture._config import is not deferrable.
    """

    programs: dict[str, ExirExportedProgram] = field(default_factory=dict)
    compile_config: EdgeCompileConfig = field(default_factory=EdgeCompileConfig)


class HackedUpExportedProgramDONOTUSE:
    """Legacy wrapper kept for _capture_legacy_do_not_use()."""

    def __init__(self, ops: list[str]) -> None:
        self.ops = list(ops)


def _transform(program: ExirExportedProgram, *passes) -> ExirExportedProgram:
    for run_pass in passes:
        program = run_pass(program)
    return program
