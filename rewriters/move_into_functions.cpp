// move-into-functions: defers a module-level import by removing it and
// importing, at the top of each function body that uses one of its names,
// exactly the names that body uses, in the statement's own form.
//
//   from .program import Program, transform      def capture(f):
//                                           ->       from .program import Program, transform
//   def capture(f):                                  return transform(Program(f))
//       return transform(Program(f))
//
// Why: a function body runs when called, not while the module is imported, so
// the import no longer makes an import-time edge.
//
// The removal covers the statement's span: parentheses, backslash
// continuations, its comment lines above and its trailing comment (which travel
// with the local imports). A statement sharing its line through `;` is cut out
// with its `;`, leaving its neighbours. Of `import pkg.b as pb, json` only the
// first-party alias moves; `import json` stays. A body nested in a function that
// already receives the name gets no second import (the closure sees it).
//
// What can go wrong: a use outside any function body (the planner pins those,
// so this is an internal error here).
#include <map>
#include <set>

#include <algorithm>

#include "reachability.hpp"
#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

namespace {

}  // namespace

void move_into_functions(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::Defer) return;
  const ModuleFacts& facts = in.file.facts;
  const ImportStatement& st = facts.imports[in.cut.import];
  change.edits.push_back(statement_removal(in.source, st, in.cut.names, in.options.line_length));

  // The names this cut moves: the planner keeps at module level the aliases
  // of an `import a, b` that are not first-party (in.cut.names lists the rest).
  const std::vector<std::string>& moved = in.cut.names;
  for (const NameUse& u : facts.uses) {
    if (u.kind == UseKind::Deferred && innermost_function(facts, u.begin) < 0 &&
        std::find(moved.begin(), moved.end(), u.name()) != moved.end()) {
      change.error = "'" + std::string(u.name()) + "' is used outside any function body at line " + std::to_string(u.line);
      return;
    }
  }

  // The statement's own comments travel with each local import.
  std::vector<std::string> comments;
  std::string trailing;
  if (!st.shares_line) {
    std::uint32_t stmt_line = text::line_start(in.source, st.stmt_begin);
    for (std::uint32_t p = st.span_begin; p < stmt_line; p = text::next_line(in.source, p)) {
      std::uint32_t e = text::next_line(in.source, p);
      std::string_view line = in.source.substr(p, e - p);
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
      while (!line.empty() && text::is_space(line.front())) line.remove_prefix(1);
      if (!line.empty()) comments.emplace_back(line);
    }
    trailing = std::string(trailing_comment(in.source, st));
  }

  for (auto& [fn, wanted] : functions_importing(facts, moved)) {
    LocalImport li;
    li.function = fn;
    li.names.assign(wanted.begin(), wanted.end());
    const ImportLayout layout{text::indentation(in.source, facts.functions[fn].body_begin).size(),
                              in.options.line_length};
    li.statement = import_subset(st, li.names, in.source, layout);
    li.comments = comments;
    li.trailing = trailing;
    change.local_imports.push_back(std::move(li));
  }
}

}  // namespace cyclefix
