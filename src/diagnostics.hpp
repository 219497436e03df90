// Per-file problems that are expected (unreadable, binary, syntax errors, ...).
// They are values, reported to the user with file and line, never exceptions.
#pragma once

#include <string>
#include <vector>

namespace cyclefix {

struct Diagnostic {
  enum class Severity { Warning, Error };
  std::string file;  // display path
  int line = 0;      // 0 when the problem has no line
  std::string message;
  Severity severity = Severity::Error;
};

// "file:line: message" (or "file: message" without a line).
std::string format_diagnostic(const Diagnostic& d);

}  // namespace cyclefix
