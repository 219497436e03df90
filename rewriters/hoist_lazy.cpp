// hoist-lazy (--prefer-lazy, --target-version 3.15 or later): local imports
// that were deferred to avoid an import cycle go back to module level as one
// `lazy` import (PEP 810).
//
//   from p.util import fmt                   from p.util import fmt
//                                            lazy from p.b import helper  # lazy: import cycle p.a -> p.b -> p.a
//   def f():                          ->
//       # Deferred: import cycle ...         def f():
//       from p.b import helper                   return helper(1)
//       return helper(1)
//
// Why: before 3.15 the way to break the loop was to import inside the
// functions; with lazy imports one module-level statement says the same thing
// once, where readers and linters look for imports, and costs nothing at
// import time. The planner (src/lazy_hoists.cpp) checked that nothing reads
// the names at import time and that they mean nothing else in the file.
//
// Each local import is removed with its own comment lines (the `# Deferred:`
// note among them) and its trailing comment. The new statement goes after the
// last module-level import above the first def or class (before that def or
// class when there is none), with the cycle note after it when the line stays
// within kFullNoteWidth columns, else on the line above.
#include <algorithm>

#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

namespace {

// The edit removing import statement `st` with its own comment lines and its trailing comment.
Edit removal(std::string_view s, const ImportStatement& st) {
  const std::uint32_t begin = text::line_start(s, st.span_begin);
  std::uint32_t end = st.span_end;
  if (end > 0 && end < s.size() && s[end - 1] != '\n') end = text::next_line(s, end);
  return {begin, end - begin, ""};
}

// Whether [begin, end) of `s`, outside the `removed` ranges, holds only blanks and comments.
bool only_removed(std::string_view s, std::uint32_t begin, std::uint32_t end, const std::vector<Edit>& removed) {
  for (std::uint32_t p = begin; p < end;) {
    auto r = std::find_if(removed.begin(), removed.end(), [&](const Edit& e) { return p >= e.offset && p < e.end(); });
    if (r != removed.end()) {
      p = r->end();
      continue;
    }
    if (s[p] == '#') {
      while (p < end && s[p] != '\n') ++p;
      continue;
    }
    if (!text::is_space(s[p]) && s[p] != '\n' && s[p] != '\r') return false;
    ++p;
  }
  return true;
}

}  // namespace

bool hoist_lazy(const Analysis& a, const FileAnalysis& fa, std::string_view s, const std::vector<const LazyHoist*>& hoists,
                const RewriteOptions& options, std::vector<Edit>& edits, std::string* error) {
  const ModuleFacts& facts = fa.facts;
  const std::string nl = text::newline(s);
  std::vector<Edit> tc_removals;
  for (const LazyHoist* h : hoists) {
    for (int i : h->imports) edits.push_back(removal(s, facts.imports[i]));
    for (int i : h->type_checking) tc_removals.push_back(removal(s, facts.imports[i]));
  }
  // A TYPE_CHECKING block left with nothing goes whole; otherwise only its emptied statements.
  std::size_t blocks_removed = 0;
  for (const TypeCheckingBlock& b : facts.type_checking_blocks) {
    std::vector<Edit> inside;
    for (const Edit& e : tc_removals)
      if (e.offset >= text::line_start(s, b.body_begin) && e.offset < b.body_end) inside.push_back(e);
    if (inside.empty()) continue;
    const std::uint32_t end = text::next_line(s, b.body_end);
    if (only_removed(s, text::line_start(s, b.body_begin), end, inside)) {
      const std::uint32_t begin = text::line_start(s, b.begin);
      edits.push_back({begin, end - begin, ""});
      ++blocks_removed;
    } else {
      edits.insert(edits.end(), inside.begin(), inside.end());
    }
  }
  // No block left: `from typing import TYPE_CHECKING` goes too when nothing else names it.
  if (blocks_removed && blocks_removed == facts.type_checking_blocks.size()) {
    std::size_t mentions = 0;
    for (std::size_t p = s.find("TYPE_CHECKING"); p != std::string_view::npos; p = s.find("TYPE_CHECKING", p + 1))
      ++mentions;
    for (const ImportStatement& st : facts.imports) {
      if (st.context != ImportContext::ModuleLevel || !st.is_from || st.level != 0 ||
          (st.module != "typing" && st.module != "typing_extensions"))
        continue;
      std::vector<std::string> keep;
      bool binds = false;
      for (const ImportAlias& al : st.names) {
        if (al.name == "TYPE_CHECKING" && al.asname.empty()) binds = true;
        else keep.push_back(al.bound_name(true));
      }
      if (!binds || mentions != 1 + blocks_removed) continue;
      if (keep.empty()) edits.push_back(removal(s, st));
      else if (st.stmt_end - st.stmt_begin < 200 && s.substr(st.stmt_begin, st.stmt_end - st.stmt_begin).find('\n') ==
                                                        std::string_view::npos)
        edits.push_back({st.stmt_begin, st.stmt_end - st.stmt_begin, import_subset(st, keep, s)});
      break;
    }
  }
  std::uint32_t first_def = static_cast<std::uint32_t>(s.size());
  for (const Definition& d : facts.definitions)
    if (d.kind == Definition::Kind::Function || d.kind == Definition::Kind::Class) first_def = std::min(first_def, d.begin);
  const ImportStatement* anchor = nullptr;
  for (const ImportStatement& st : facts.imports)
    if (st.context == ImportContext::ModuleLevel && st.stmt_begin < first_def && !st.shares_line &&
        (!anchor || st.stmt_end > anchor->stmt_end))
      anchor = &st;
  std::string lines;
  for (const LazyHoist* h : hoists) {
    std::string line = h->statement;
    if (options.note && !h->loop.empty()) {
      const std::size_t column = line.size() + 2;
      std::string note = column < kFullNoteWidth ? loop_note(a, h->loop, "# lazy: ", kFullNoteWidth - column) : "";
      if (!note.empty() && column + note.size() <= kFullNoteWidth) line += "  " + note;
      else line = loop_note(a, h->loop, "# lazy: ", kFullNoteWidth) + nl + line;
    }
    lines += line + nl;
  }
  if (anchor) {
    const std::uint32_t at = text::next_line(s, anchor->stmt_end);
    if (at == s.size() && (s.empty() || s.back() != '\n')) lines = nl + lines;
    edits.push_back({at, 0, std::move(lines)});
    return true;
  }
  if (first_def >= s.size() || !text::indentation(s, first_def).empty()) {
    *error = "no module-level import above the first definition to put it after";
    return false;
  }
  edits.push_back({text::line_start(s, first_def), 0, lines + nl + nl});
  return true;
}

}  // namespace cyclefix
