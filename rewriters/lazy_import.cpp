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
//
// A split (--only-failing, a name of a multi-name import that the failing
// entry cannot get yet): that name leaves the statement for a `lazy` statement
// of its own on the next line; the others, read at import time, stay eager.
//
//   from p.b import BASE, helper          ->   from p.b import BASE
//                                              lazy from p.b import helper  # lazy: import cycle p.a -> p.b -> p.a
#include <algorithm>

#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

namespace {

constexpr std::string_view kLabel = "# lazy: ";

// The note to write after a statement that ends at `column` ("  # lazy: ..."
// included), when it fits in kFullNoteWidth; "" when it goes above instead.
std::string trailing_note(const RewriteInput& in, std::size_t column) {
  if (column >= kFullNoteWidth) return {};
  std::string note = cycle_note_text(in, kLabel, kFullNoteWidth - column);
  return column + note.size() <= kFullNoteWidth ? note : std::string();
}

void split_lazy(const RewriteInput& in, const ImportStatement& st, AtomicChange& change) {
  const std::string_view src = in.source;
  std::vector<std::string> staying;
  for (const std::string& n : st.bound_names())
    if (std::find(in.cut.names.begin(), in.cut.names.end(), n) == in.cut.names.end()) staying.push_back(n);
  change.edits.push_back({st.stmt_begin, st.stmt_end - st.stmt_begin, import_subset(st, staying, src)});
  const std::string nl = text::newline(src);
  const std::string indent = text::indentation(src, st.stmt_begin);
  const std::string lazy = indent + "lazy " + import_subset(st, in.cut.names, src);
  const std::uint32_t at = text::next_line(src, st.stmt_end);
  std::string line = at == src.size() && (src.empty() || src.back() != '\n') ? nl : "";
  if (in.options.note) {
    if (const std::string note = trailing_note(in, lazy.size() + 2); !note.empty())
      line += lazy + "  " + note + nl;
    else
      line += indent + cycle_note_text(in, kLabel, kFullNoteWidth - indent.size()) + nl + lazy + nl;
  } else {
    line += lazy + nl;
  }
  change.edits.push_back({at, 0, line});
}

}  // namespace

void lazy_import(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::Lazy) return;
  const ImportStatement& st = in.file.facts.imports[in.cut.import];
  if (in.cut.split) return split_lazy(in, st, change);
  const std::string_view src = in.source;
  constexpr std::string_view kLazy = "lazy ";
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
  if (const std::string note = one_line && rest_blank ? trailing_note(in, column) : ""; !note.empty()) {
    change.edits.push_back({st.stmt_begin, 0, std::string(kLazy)});
    change.edits.push_back({st.stmt_end, eol - st.stmt_end, "  " + note});
    return;
  }
  const std::string indent = text::indentation(src, st.stmt_begin);
  const std::string note = cycle_note_text(in, kLabel, kFullNoteWidth - indent.size());
  // Both insertions may share an offset (no indentation): the set keeps the order they were added in.
  change.edits.push_back({begin_line, 0, indent + note + text::newline(src)});
  change.edits.push_back({st.stmt_begin, 0, std::string(kLazy)});
}

}  // namespace cyclefix
