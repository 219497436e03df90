// libFuzzer target for the parser-to-rewrite path: the input bytes are
// pkg/a.py in a package where pkg/b.py needs pkg.a at import time, so any
// first-party import in a.py that runs at import time closes a cycle and the
// planner must cut it in a.py. Runs facts -> graph -> plan -> rewrite and aborts
// when a promise breaks:
//   * an input that parses cleanly gives output that parses cleanly (the
//     rewrite never has to drop a file for a syntax error it made);
//   * when every planned cut was made, a second run on the output is empty;
//   * the rewritten a.py imports exactly the (module, name, alias) triples the
//     original did (moved imports bind what the originals bound), plus at most
//     `from typing import TYPE_CHECKING`.
// Crashes and sanitizer reports end the run on their own.
//
// Build: cmake -DCYCLEFIX_FUZZ=ON with clang (tools/fuzz.sh does it). A crash
// it finds goes into tests/fuzz/regressions/, which the unit tests replay.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return -1;
  std::string why = cyclefix::fuzzing::check_rewrite_promises(std::string(reinterpret_cast<const char*>(data), size));
  if (!why.empty()) {
    std::fprintf(stderr, "cyclefix fuzz: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
