"""Exported programs and the managers that lower them."""

from ._program import _transform, ExirExportedProgram, HackedUpExportedProgramDONOTUSE

__all__ = ["_transform", "ExirExportedProgram", "HackedUpExportedProgramDONOTUSE"]
