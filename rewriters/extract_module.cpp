// extract-module: the definitions an importer reads at import time move out of
// the module on the loop into a new module beside it, which imports no module
// of the loop (Strategy::Extract; the planner chose what moves).
//
//   pkg/a.py                          pkg/_a_defs.py (new)
//     from pkg import b                 """`LIMIT`: moved here from pkg.a ..."""
//     LIMIT = 10            ->          LIMIT = 10
//                                     pkg/a.py
//                                       from pkg import b
//                                       from ._a_defs import LIMIT
//
// and the importer's `from pkg.a import LIMIT` becomes `from pkg._a_defs
// import LIMIT` (bypass_reexport). Why: the importer no longer runs or reads a
// partially initialised module; the defining module still binds every name it
// did (imported back from the new module), so its other readers and its own
// code are served as before. The new module gets the defining module's import
// statements the moved code reads (reduced to those names), and `from
// __future__ import annotations` when the module had it.
//
// The re-import goes right after the defining module's last module-level
// import above the moved code (with the other imports, where linters want it),
// else where the first moved statement was. An import of the defining module
// that only the moved code read is dropped from it when nothing else can read
// it (unused_after).
#include <algorithm>
#include <map>
#include <set>

#include "rewriter.hpp"
#include "source_text.hpp"
#include "strings.hpp"

namespace cyclefix {

namespace {

// `text` filled into lines of at most `width` characters (a word longer than
// that gets a line of its own), each ending in `nl`.
std::string fill_lines(std::string_view text, std::size_t width, const std::string& nl) {
  std::string out, line;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + nl;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  return line.empty() ? out : out + line + nl;
}

// Docstring lines (black's limit, less the quotes a first line carries).
constexpr std::size_t kDocstringWidth = 79;

// The names of the defining file's import statement `i` that only the moved
// code read (`read`), which it can drop (ruff would flag them, F401): none
// read elsewhere in the file, none in its `__all__`, none another module
// imports from it, and only when nothing binds the module itself elsewhere
// (`import pkg.m` could read `m.name`), the file's name uses are at hand (it
// holds a candidate, so the planner kept them) and no cut of the plan
// rewrites the statement.
std::vector<std::string> unused_after(const Analysis& a, const CutPlan& plan, int file, int i,
                                      const std::set<std::string>& read,
                                      const std::map<std::uint32_t, std::uint32_t>& moved) {
  const FileAnalysis& fa = a.files[file];
  const std::string& self = a.modules[fa.module].name;
  bool uses_kept = false;
  for (const CandidateStatement& c : plan.candidates) uses_kept = uses_kept || c.file == file;
  for (int c : plan.cuts)
    if (plan.candidates[c].file == file && plan.candidates[c].import == i) return {};
  if (!uses_kept) return {};
  std::set<std::string> out(read.begin(), read.end());
  auto inside_moved = [&](std::uint32_t at) {
    auto it = moved.upper_bound(at);
    return it != moved.begin() && at < std::prev(it)->second;
  };
  for (const NameUse& u : fa.facts.uses)
    if (!inside_moved(u.begin)) out.erase(std::string(u.name()));
  if (fa.facts.dunder_all)
    for (const std::string& n : *fa.facts.dunder_all) out.erase(n);
  for (const FileAnalysis& other : a.files) {
    if (out.empty()) break;
    for (std::size_t k = 0; k < other.facts.imports.size() && k < other.resolved.size(); ++k) {
      const ImportStatement& st = other.facts.imports[k];
      const ResolvedImport& r = other.resolved[k];
      if (st.is_from && r.absolute_module == self) {
        if (st.star) return {};
        for (const ImportAlias& al : st.names) out.erase(al.name);
        continue;
      }
      for (const ImportTarget& t : r.targets)
        if (t.module == fa.module) return {};  // binds the module: its attributes may be read
    }
  }
  return std::vector<std::string>(out.begin(), out.end());
}

}  // namespace

bool extract_module(const Analysis& a, const CycleReport& cycles, const CutPlan& plan, const std::vector<int>& cuts,
                    std::string_view s, std::vector<Edit>& edits, CreatedFile& created, std::string* error) {
  const Extraction& first = plan.candidates[cuts.front()].extract;
  const FileAnalysis& fa = a.files[first.file];
  const std::string& from = a.modules[fa.module].name;
  std::map<std::uint32_t, std::uint32_t> statements;      // begin -> end
  std::map<int, std::set<std::string>> imports;          // statement -> names read
  std::set<std::string> names;
  for (int c : cuts) {
    const Extraction& x = plan.candidates[c].extract;
    if (x.module != first.module) {
      *error = "two new modules asked for " + fa.source.display + " (" + first.module + ", " + x.module + ")";
      return false;
    }
    for (auto [b, e] : x.statements) statements[b] = e;
    for (const auto& [i, n] : x.imports) imports[i].insert(n.begin(), n.end());
    names.insert(x.names.begin(), x.names.end());
  }
  const std::string nl = text::newline(s);
  std::vector<std::string> quoted;
  for (const std::string& n : names) quoted.push_back("`" + n + "`");
  const std::string listed = join(quoted, ", ");

  // The new module.
  const std::vector<std::vector<ModuleId>> loops = loops_through(a, cycles, plan.candidates[cuts.front()]);
  std::string loop;
  for (ModuleId m : loops.empty() ? std::vector<ModuleId>{} : loops.front())
    loop += (loop.empty() ? "" : " -> ") + a.modules[m].name;
  std::set<std::string> readers;
  for (int c : cuts) readers.insert(a.modules[a.files[plan.candidates[c].file].module].name);
  const std::string who = join(std::vector<std::string>(readers.begin(), readers.end()), ", ");
  std::string out = "\"\"\"" + fill_lines("Moved here from " + from + " by cyclefix: " + listed + ".", kDocstringWidth, nl) + nl;
  out += fill_lines(who + " read" + (readers.size() == 1 ? "s" : "") + (names.size() == 1 ? " it" : " them") +
                        " while " + from + " is still being imported" +
                        (loop.empty() ? "." : ", on import cycle " + loop + ".") +
                        " This module imports no module of that loop.",
                    kDocstringWidth, nl) +
         "\"\"\"" + nl;
  if (fa.facts.future_annotations) out += nl + "from __future__ import annotations" + nl;
  if (!imports.empty()) {
    out += nl;
    for (const auto& [i, n] : imports)
      out += import_subset(fa.facts.imports[static_cast<std::size_t>(i)], std::vector<std::string>(n.begin(), n.end()),
                           s) +
             nl;
  }
  auto is_code = [&](std::uint32_t b) {
    std::uint32_t p = b;
    while (p < s.size() && s[p] == '#') p = text::next_line(s, p);  // the comments above it
    const std::string_view rest = s.substr(p);
    return rest.starts_with("def ") || rest.starts_with("async ") || rest.starts_with("class ") ||
           rest.starts_with("@");
  };
  std::uint32_t previous_end = 0;
  bool any = false;
  for (auto [b, e] : statements) {
    const bool adjacent = any && previous_end == b;
    if (!any || !adjacent) out += is_code(b) ? nl + nl : nl;
    std::string_view chunk = s.substr(b, e - b);
    out += chunk;
    if (chunk.empty() || chunk.back() != '\n') out += nl;
    previous_end = e;
    any = true;
  }
  created.module = first.module;
  created.path = first.path;
  created.display = first.display;
  created.text = std::move(out);
  created.cuts = cuts;

  // The defining module: the statements go, the names come back from the new module.
  const std::string leaf = first.module.substr(first.module.rfind('.') + 1);
  const bool relative = std::any_of(fa.facts.imports.begin(), fa.facts.imports.end(),
                                    [](const ImportStatement& i) { return i.level > 0; });
  const std::string back = "from " + (relative && first.module.find('.') != std::string::npos ? "." + leaf : first.module) +
                           " import " + join(std::vector<std::string>(names.begin(), names.end()), ", ") + nl;
  const std::uint32_t first_begin = statements.begin()->first;
  const ImportStatement* above = nullptr;
  for (const ImportStatement& i : fa.facts.imports)
    if (i.context == ImportContext::ModuleLevel && i.stmt_end <= first_begin && !i.is_lazy &&
        (!above || i.stmt_end > above->stmt_end))
      above = &i;
  for (auto [b, e] : statements)
    edits.push_back({b, e - b, !above && b == first_begin ? back : std::string()});
  if (above) edits.push_back({text::next_line(s, above->stmt_end), 0, back});
  for (const auto& [i, read] : imports) {
    std::vector<std::string> unused = unused_after(a, plan, first.file, i, read, statements);
    if (!unused.empty())
      edits.push_back(statement_removal(s, fa.facts.imports[static_cast<std::size_t>(i)], unused));
  }
  return true;
}

}  // namespace cyclefix
