// lazy-import (--target-version 3.15 or later): writes `lazy ` in front of the
// module-level import, PEP 810's own answer to import cycles.
//
//   from .b import helper                 ->   lazy from .b import helper  # lazy: import cycle a -> b -> a
//
// Why: a lazy import binds a proxy and imports nothing until the name is first
// read; no name the statement binds is read while the cycle loads (the planner
// checked, docs/planner.md), so by the first read every module of the loop has
// finished. The statement stays where it is, with its comments and aliases: a
// five-byte edit, the smallest fix there is.
//
// The cycle note (unless --no-note) goes after the statement when it is one
// line with nothing after it and the note fits in kFullNoteWidth columns
// (compact form first); otherwise on a comment line of its own above it.
#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

void lazy_import(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::Lazy) return;
  const ImportStatement& st = in.file.facts.imports[in.cut.import];
  const std::string_view src = in.source;
  constexpr std::string_view kLazy = "lazy ";
  constexpr std::string_view kLabel = "# lazy: ";
  if (!in.options.note) {
    change.edits.push_back({st.stmt_begin, 0, std::string(kLazy)});
    return;
  }
  const std::uint32_t begin_line = text::line_start(src, st.stmt_begin);
  std::uint32_t eol = text::next_line(src, st.stmt_end);
  while (eol > st.stmt_end && (src[eol - 1] == '\n' || src[eol - 1] == '\r')) --eol;
  bool rest_blank = true;
  for (std::uint32_t p = st.stmt_end; p < eol; ++p) rest_blank = rest_blank && text::is_space(src[p]);
  const bool one_line = text::line_start(src, st.stmt_end) == begin_line;
  const std::size_t column = st.stmt_end - begin_line + kLazy.size() + 2;  // "  # lazy: ..."
  if (one_line && rest_blank && column < kFullNoteWidth) {
    const std::string note = cycle_note_text(in, kLabel, kFullNoteWidth - column);
    if (column + note.size() <= kFullNoteWidth) {
      change.edits.push_back({st.stmt_begin, 0, std::string(kLazy)});
      change.edits.push_back({st.stmt_end, eol - st.stmt_end, "  " + note});
      return;
    }
  }
  const std::string indent = text::indentation(src, st.stmt_begin);
  const std::string note = cycle_note_text(in, kLabel, kFullNoteWidth - indent.size());
  // Both insertions may share an offset (no indentation): the set keeps the order they were added in.
  change.edits.push_back({begin_line, 0, indent + note + text::newline(src)});
  change.edits.push_back({st.stmt_begin, 0, std::string(kLazy)});
}

}  // namespace cyclefix
