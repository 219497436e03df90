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
// removes; when the cut breaks more of them, "(and N more loops)" says so. When
// the listed loops are capped (--max-loops) and none takes this statement, the
// shortest loop through one of its edges is computed for it (SymPy: 259 of 284
// notes). When the note with full module names would be longer than
// kFullNoteWidth, the package prefix every module of the loop shares is dropped
// and the rest is written as paths, as the seed's reviewers wrote it:
//
//       # Deferred: import cycle capture/_capture -> program/__init__ -> program/_program -> capture/_capture
//
// so the loop stays one readable line. What can go wrong: nothing that changes
// code; a statement on no loop at all (which the planner never cuts) would get
// a note without one.
#include <algorithm>
#include <string_view>

#include "cycle_report.hpp"
#include "rewriter.hpp"

namespace cyclefix {

namespace {

std::vector<std::string_view> components(std::string_view dotted) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    std::size_t dot = dotted.find('.', start);
    out.push_back(dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

// The loop with the dotted prefix shared by all its modules removed (keeping at
// least the last component of each) and dots written as '/'.
std::string compact_loop_text(const Analysis& a, const std::vector<ModuleId>& loop) {
  std::vector<std::vector<std::string_view>> names;
  std::vector<std::string> owned;
  owned.reserve(loop.size());
  for (ModuleId m : loop) owned.push_back(display_name(a.modules[m]));
  for (const std::string& n : owned) names.push_back(components(n));
  std::size_t shared = names.front().size() - 1;
  for (const auto& n : names) {
    shared = std::min(shared, n.size() - 1);
    for (std::size_t i = 0; i < shared; ++i)
      if (n[i] != names.front()[i]) shared = i;
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += " -> ";
    for (std::size_t c = shared; c < names[i].size(); ++c) {
      if (c > shared) out += '/';
      out += names[i][c];
    }
  }
  return out;
}

}  // namespace

std::string loop_note(const Analysis& a, const std::vector<ModuleId>& loop, std::string_view label,
                      std::size_t width, std::size_t more) {
  std::string note = std::string(label) + "import cycle " + loop_text(a, loop);
  if (note.size() > width) note = std::string(label) + "import cycle " + compact_loop_text(a, loop);
  if (more) note += " (and " + std::to_string(more) + " more loop" + (more > 1 ? "s" : "") + ")";
  return note;
}

std::string cycle_note_text(const RewriteInput& in, std::string_view label, std::size_t width) {
  std::vector<ModuleId> best;
  const auto loops = loops_through(in.analysis, in.cycles, in.cut);
  for (const auto& loop : loops)
    if (best.empty() || loop.size() < best.size()) best = loop;
  if (best.empty()) return std::string(label) + "breaks an import cycle";
  // Rotate the loop (first == last) to start at this module.
  best.pop_back();
  auto at = std::find(best.begin(), best.end(), in.file.module);
  if (at != best.end()) std::rotate(best.begin(), at, best.end());
  best.push_back(best.front());
  return loop_note(in.analysis, best, label, width, loops.size() - 1);
}

void cycle_note(const RewriteInput& in, AtomicChange& change) {
  if (!in.options.note || change.local_imports.empty()) return;
  const std::string note = cycle_note_text(in, "# Deferred: ", kFullNoteWidth);
  for (LocalImport& li : change.local_imports) li.comments.push_back(note);
}

}  // namespace cyclefix
