// bypass-reexport: imports each name from the module that defines it, in
// place, instead of through a module that only re-binds it.
//
//   from .base import Database        ->   from sqlite3 import dbapi2 as Database
//   from . import Error, Tags         ->   from .messages import Error
//                                          from .registry import Tags
//
// Why: the statement no longer makes the importer run (or read a name from) the
// module on the loop; the defining module does not import the importer back
// (the planner checked, docs/planner.md), so the import stays at module level
// and works even where the name is used at import time. One changed line for
// one origin: the size of the fix a reviewer writes by hand.
//
// An extraction's statement (Strategy::Extract) is rewritten the same way, to
// import from the new module (extract_module writes the module itself).
//
// The statement's bytes are replaced; comments around it stay where they are,
// and a comment inside a parenthesised statement follows its alias. Several
// origins give one statement per line at the statement's indentation; a pragma
// after the statement (`# type: ignore`, `# noqa`) is repeated on each.
#include <algorithm>

#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

void bypass_reexport(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::Bypass && in.cut.strategy != Strategy::Extract) return;
  const ImportStatement& st = in.file.facts.imports[in.cut.import];
  const std::vector<std::string> lines = bypass_statements(in.cut);
  if (lines.empty()) {
    change.error = "no statement to write";
    return;
  }
  const std::string_view text = in.source.substr(st.stmt_begin, st.stmt_end - st.stmt_begin);
  const std::string nl = text::newline(in.source);
  const std::string indent = text::indentation(in.source, st.stmt_begin);
  // A linter's or type checker's pragma after the statement (`# type: ignore`,
  // `# noqa`, ...) holds for each line written in its place; the comment itself
  // stays after the last one. (Which name needed it cannot be known.)
  std::string pragma;
  {
    const std::uint32_t eol = text::next_line(in.source, st.stmt_end);
    std::string_view after = in.source.substr(st.stmt_end, eol - st.stmt_end);
    const std::size_t hash = after.find('#');
    if (hash != std::string_view::npos && text::blank(in.source, st.stmt_end, st.stmt_end + hash)) {
      std::string_view comment = after.substr(hash);
      while (!comment.empty() && (comment.back() == '\n' || comment.back() == '\r' || text::is_space(comment.back())))
        comment.remove_suffix(1);
      if (is_pragma_comment(comment)) pragma = "  " + std::string(comment);
    }
  }
  std::string out;
  std::vector<char> written(in.cut.bypass.size(), 0);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    // The names line i binds: bypass_statements groups them by module, in order of first appearance.
    std::size_t first = 0;
    while (first < written.size() && written[first]) ++first;
    std::vector<std::string> bound;
    for (std::size_t k = first; k < in.cut.bypass.size(); ++k) {
      const BypassName& b = in.cut.bypass[k];
      const BypassName& head = in.cut.bypass[first];
      const bool same = k == first || (!head.name.empty() && !b.name.empty() && b.module == head.module);
      if (same && !written[k]) {
        written[k] = 1;
        bound.push_back(b.bound);
      }
    }
    if (i) out += pragma + nl + indent;
    // A pragma binds to its line: a statement that carries one stays on one.
    const std::size_t width = pragma.empty() ? in.options.line_length : 0;
    out += text::continue_lines(wrap_import_line(lines[i], {indent.size(), width}), nl, indent);
    if (text.find('#') != std::string_view::npos)
      for (const std::string& c : alias_comments(text, bound)) out += "  " + c;
  }
  change.edits.push_back({st.stmt_begin, st.stmt_end - st.stmt_begin, std::move(out)});
}

}  // namespace cyclefix
