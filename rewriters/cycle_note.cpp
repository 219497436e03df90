// cycle-note: a one-line comment on each moved import naming the loop it
// breaks, starting from the module it sits in:
//
//       # Deferred: import cycle exir.capture._capture -> exir.program._program -> exir.capture._capture
//       from exir.program._program import ExirExportedProgram
//
// Why: a local import without a reason reads like a mistake, and the next
// editor (or a linter) hoists it back and brings the cycle with it. Off with
// --no-note.
//
// The loop is the shortest of the report's loops through an edge this cut
// removes. What can go wrong: nothing that changes code; a cut whose edge is on
// no listed loop (loops capped by --max-loops) gets a note without the loop.
#include <algorithm>

#include "rewriter.hpp"

namespace cyclefix {

void cycle_note(const RewriteInput& in, AtomicChange& change) {
  if (!in.options.note || change.local_imports.empty()) return;
  std::vector<ModuleId> best;
  for (const auto& loop : loops_through(in.analysis, in.cycles, in.cut))
    if (best.empty() || loop.size() < best.size()) best = loop;
  std::string note = "# Deferred: breaks an import cycle";
  if (!best.empty()) {
    // Rotate the loop (first == last) to start at this module.
    best.pop_back();
    auto at = std::find(best.begin(), best.end(), in.file.module);
    if (at != best.end()) std::rotate(best.begin(), at, best.end());
    best.push_back(best.front());
    note = "# Deferred: import cycle " + loop_text(in.analysis, best);
  }
  for (LocalImport& li : change.local_imports) li.comments.push_back(note);
}

}  // namespace cyclefix
