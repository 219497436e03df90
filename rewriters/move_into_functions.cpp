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
// with its `;`, leaving its neighbours. A body nested in a function that
// already receives the name gets no second import (the closure sees it).
//
// What can go wrong: a use outside any function body (the planner pins those,
// so this is an internal error here).
#include <map>
#include <set>

#include <algorithm>

#include "rewriter.hpp"
#include "source_text.hpp"

namespace cyclefix {

namespace {

// The removal: the statement with its own comments, and one blank line when it
// sat between two, so no double gap is left behind.
Edit removal(std::string_view s, const ImportStatement& st) {
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

// The innermost function whose body holds byte `pos`, or -1.
int innermost_function(const ModuleFacts& f, std::uint32_t pos) {
  int best = -1;
  for (std::size_t i = 0; i < f.functions.size(); ++i) {
    const FunctionInfo& fn = f.functions[i];
    if (fn.body_begin <= pos && pos < fn.end && (best < 0 || fn.body_begin >= f.functions[best].body_begin))
      best = static_cast<int>(i);
  }
  return best;
}

// Functions whose bodies enclose function `i`'s definition, innermost first.
std::vector<int> enclosing_functions(const ModuleFacts& f, int i) {
  std::vector<int> out;
  for (int g = innermost_function(f, f.functions[i].begin); g >= 0; g = innermost_function(f, f.functions[g].begin))
    out.push_back(g);
  return out;
}

}  // namespace

void move_into_functions(const RewriteInput& in, AtomicChange& change) {
  const ModuleFacts& facts = in.file.facts;
  const ImportStatement& st = facts.imports[in.cut.import];
  change.edits.push_back(removal(in.source, st));

  const std::vector<std::string> bound = st.bound_names();
  std::map<int, std::set<std::string>> by_function;
  for (const NameUse& u : facts.uses) {
    if (u.kind != UseKind::Deferred) continue;
    if (std::find(bound.begin(), bound.end(), u.name) == bound.end()) continue;
    int fn = innermost_function(facts, u.begin);
    if (fn < 0) {
      change.error = "'" + u.name + "' is used outside any function body at line " + std::to_string(u.line);
      return;
    }
    by_function[fn].insert(u.name);
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

  for (auto& [fn, names] : by_function) {
    std::set<std::string> wanted = names;
    for (int outer : enclosing_functions(facts, fn)) {
      auto it = by_function.find(outer);
      if (it == by_function.end()) continue;
      for (const auto& n : it->second) wanted.erase(n);
    }
    if (wanted.empty()) continue;
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
