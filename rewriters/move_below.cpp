// move-below (--only-failing --allow-late-imports): the module-level import
// moves down, below the definition that the module it imports reads back
// while this one is partially initialised. What humans write when nothing
// else works (issue 17 item 4); linters flag it (E402), so it says so.
//
//   from p.b import helper                      X = compute()
//   X = compute()                         ->
//                                               # Below X: import cycle p.a -> p.b -> p.a
//                                               from p.b import helper  # noqa: E402
//
// Why: p.b runs `from p.a import X` while p.a is partially initialised, at the
// line of p.a's import of p.b; run that import after X is bound and p.b finds
// it. The edge stays (a harmless cycle is left); the planner checked that no
// name the statement binds is read at import time above its new place and
// simulated the move. The statement keeps its text and comments; the note
// (unless --no-note) goes on the line above it.
#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

void move_below(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::MoveBelow) return;
  const ImportStatement& st = in.file.facts.imports[in.cut.import];
  const Definition& below = in.file.facts.definitions.at(in.cut.below);
  const std::string_view src = in.source;
  const std::string nl = text::newline(src);
  change.edits.push_back(statement_removal(src, st, st.bound_names()));
  std::string_view moved = st.shares_line ? src.substr(st.stmt_begin, st.stmt_end - st.stmt_begin)
                                          : src.substr(st.span_begin, st.span_end - st.span_begin);
  while (!moved.empty() && (moved.back() == '\n' || moved.back() == '\r')) moved.remove_suffix(1);
  const std::uint32_t at = text::next_line(src, below.end);
  std::string text = at == src.size() && (src.empty() || src.back() != '\n') ? nl : "";
  text += nl + nl;  // two blank lines after a def or class (PEP 8)
  if (in.options.note)
    text += cycle_note_text(in, "# Below " + below.name + ": ", kFullNoteWidth) + nl;
  // The suppression goes on the statement's first line, where linters report E402.
  std::string statement(moved);
  const std::size_t first = st.shares_line ? 0 : st.stmt_begin - st.span_begin;
  std::size_t eol = statement.find('\n', first);
  if (eol == std::string::npos) eol = statement.size();
  if (eol > first && statement[eol - 1] == '\r') --eol;
  statement.insert(eol, "  # noqa: E402");
  text += statement + nl;
  change.edits.push_back({at, 0, text});
}

}  // namespace cyclefix
