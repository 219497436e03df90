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
  const std::vector<WrittenImport> statements = bypass_imports(in.cut);
  if (statements.empty()) {
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
  std::string_view comment = trailing_comment(in.source, st);
  while (!comment.empty() && text::is_space(comment.front())) comment.remove_prefix(1);
  while (!comment.empty() && text::is_space(comment.back())) comment.remove_suffix(1);
  if (is_pragma_comment(comment)) pragma = "  " + std::string(comment);
  // A pragma binds to its line: a statement that carries one stays on one.
  const std::size_t width = pragma.empty() ? in.options.line_length : 0;
  std::string out;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const WrittenImport& w = statements[i];
    if (i) out += pragma + nl + indent;
    out += text::continue_lines(wrap_import(w.head, w.names, {indent.size(), width}), nl, indent);
    if (text.find('#') != std::string_view::npos)
      for (const std::string& c : alias_comments(text, w.bound)) out += "  " + c;
  }
  change.edits.push_back({st.stmt_begin, st.stmt_end - st.stmt_begin, std::move(out)});
}

}  // namespace cyclefix
