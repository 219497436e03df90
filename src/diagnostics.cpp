#include "diagnostics.hpp"

namespace cyclefix {

std::string format_diagnostic(const Diagnostic& d) {
  std::string out = d.file;
  if (d.line > 0) {
    out += ':';
    out += std::to_string(d.line);
  }
  out += ": ";
  out += d.message;
  return out;
}

}  // namespace cyclefix
