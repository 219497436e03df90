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

// The removal: the statement with its own comments, and one blank line when it
// sat between two, so no double gap is left behind.
Edit removal(std::string_view s, const ImportStatement& st, const std::vector<std::string>& moved) {
  const std::vector<std::string> bound = st.bound_names();
  std::vector<std::string> staying;
  for (const auto& n : bound)
    if (std::find(moved.begin(), moved.end(), n) == moved.end()) staying.push_back(n);
  if (!staying.empty())  // `import pkg.b as pb, json` -> `import json`
    return {st.stmt_begin, st.stmt_end - st.stmt_begin, import_subset(st, staying, s)};
  if (st.shares_line) {
    std::uint32_t e = st.stmt_end;
    while (e < s.size() && text::is_space(s[e])) ++e;
    if (e < s.size() && s[e] == ';') {  // `import a; rest`: take `import a; `
      ++e;
      while (e < s.size() && text::is_space(s[e])) ++e;
      return {st.stmt_begin, e - st.stmt_begin, ""};
    }
    std::uint32_t b = st.stmt_begin;  // `rest; import a`: take `; import a`
    while (b > 0 && text::is_space(s[b - 1])) --b;
    if (b > 0 && s[b - 1] == ';') --b;
    while (b > 0 && text::is_space(s[b - 1])) --b;
    return {b, st.stmt_end - b, ""};
  }
  std::uint32_t b = st.span_begin, e = st.span_end;
  bool at_line_start = b == text::line_start(s, b);
  bool blank_before = b == 0 || text::blank_line(s, b - 1);
  if (at_line_start && blank_before && e < s.size() && e == text::line_start(s, e) && text::blank_line(s, e))
    e = text::next_line(s, e);
  return {b, e - b, ""};
}

}  // namespace

void move_into_functions(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::Defer) return;
  const ModuleFacts& facts = in.file.facts;
  const ImportStatement& st = facts.imports[in.cut.import];
  change.edits.push_back(removal(in.source, st, in.cut.names));

  // The names this cut moves: the planner keeps at module level the aliases
  // of an `import a, b` that are not first-party (in.cut.names lists the rest).
  const std::vector<std::string>& moved = in.cut.names;
  for (const NameUse& u : facts.uses) {
    if (u.kind == UseKind::Deferred && innermost_function(facts, u.begin) < 0 &&
        std::find(moved.begin(), moved.end(), u.name) != moved.end()) {
      change.error = "'" + u.name + "' is used outside any function body at line " + std::to_string(u.line);
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
    std::string_view after = in.source.substr(st.stmt_end, st.span_end - st.stmt_end);
    while (!after.empty() && (after.back() == '\n' || after.back() == '\r')) after.remove_suffix(1);
    if (after.find('#') != std::string_view::npos) trailing = std::string(after);
  }

  for (auto& [fn, wanted] : functions_importing(facts, moved)) {
    LocalImport li;
    li.function = fn;
    li.names.assign(wanted.begin(), wanted.end());
    li.statement = import_subset(st, li.names, in.source);
    li.comments = comments;
    li.trailing = trailing;
    change.local_imports.push_back(std::move(li));
  }
}

}  // namespace cyclefix
