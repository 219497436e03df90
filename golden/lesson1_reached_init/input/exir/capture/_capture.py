from exir.program import ExportedProgram


def capture(f) -> ExportedProgram:
    return ExportedProgram(f)
