// late-binding (--only-failing): imports the module instead of names from it,
// and reads each name through the module where it is used.
//
//   from .b import helper          ->   from . import b
//   def g():                            def g():
//       return helper(1)                    return b.helper(1)
//
// Why: `from .b import helper` fails while .b is partially initialised and has
// not bound `helper` yet; `from . import b` only needs the module object, which
// exists from the moment .b starts (CPython 3.7+ finds it in sys.modules). Every
// use is in a function that does not run while the cycle loads (the planner
// checked, docs/planner.md), so by the time `b.helper` is read, .b is complete.
// The import stays at module level, where a reviewer and a linter expect it.
//
// The statement's bytes are replaced (its comments kept after it); each use of
// a bound name is replaced by `<module>.<name>` (an alias `as h` reads the
// original name). The module's name was checked to be free in the file; a
// whole-word occurrence the facts do not see (a comprehension variable, say)
// refuses the change instead of changing what a name means.
#include <cctype>

#include "rewriter.hpp"

namespace cyclefix {

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `word` occurs as a whole identifier in `s` outside [skip_begin, skip_end).
bool occurs(std::string_view s, std::string_view word, std::size_t skip_begin, std::size_t skip_end) {
  for (std::size_t p = s.find(word); p != std::string_view::npos; p = s.find(word, p + 1)) {
    if (p >= skip_begin && p < skip_end) continue;
    const bool starts = p == 0 || !identifier_char(s[p - 1]);
    const bool ends = p + word.size() == s.size() || !identifier_char(s[p + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

void late_binding(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::LateBind) return;
  const LateBinding& late = in.cut.late;
  const ImportStatement& st = in.file.facts.imports[in.cut.import];
  if (occurs(in.source, late.prefix, st.stmt_begin, st.stmt_end)) {
    change.error = "the name '" + late.prefix + "' already occurs in the file";
    return;
  }
  const std::string_view text = in.source.substr(st.stmt_begin, st.stmt_end - st.stmt_begin);
  std::string out = late.statement;
  if (text.find('#') != std::string_view::npos) {
    std::vector<std::string> bound;
    for (const auto& [name, attr] : late.names) bound.push_back(name);
    for (const std::string& c : alias_comments(text, bound)) out += "  " + c;
  }
  change.edits.push_back({st.stmt_begin, st.stmt_end - st.stmt_begin, std::move(out)});
  for (const NameUse* u : late_bound_uses(in.file, in.cut)) {
    for (const auto& [name, attr] : late.names)
      if (name == u->name()) change.edits.push_back({u->begin, u->end - u->begin, late.prefix + "." + attr});
  }
}

}  // namespace cyclefix
