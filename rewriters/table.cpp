// The rewriter table: what runs, in which order. No registration by static
// initialisers; adding a rewriter means adding a line here.
#include "rewriter.hpp"

#include <algorithm>

namespace cyclefix {

const std::vector<RewriterEntry>& rewriters() {
  static const std::vector<RewriterEntry> table = {
      {"move-into-functions", move_into_functions},  // remove the statement, import where used
      {"type-checking", type_checking_entries},      // annotation names under TYPE_CHECKING, quoting
      {"cycle-note", cycle_note},                    // name the loop on each moved import
      {"suppress-hoisting", suppress_hoisting},      // --noqa: stop linters moving it back
  };
  return table;
}

std::string import_subset(const ImportStatement& st, const std::vector<std::string>& names, std::string_view source) {
  std::vector<const ImportAlias*> kept;
  for (const ImportAlias& al : st.names)
    if (std::find(names.begin(), names.end(), al.bound_name(st.is_from)) != names.end()) kept.push_back(&al);
  if (kept.size() == st.names.size())
    return std::string(source.substr(st.stmt_begin, st.stmt_end - st.stmt_begin));
  std::string out;
  if (st.is_from) {
    out = "from " + std::string(static_cast<std::size_t>(st.level), '.') + st.module + " import ";
  } else {
    out = "import ";
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i) out += ", ";
    out += kept[i]->name;
    if (!kept[i]->asname.empty()) out += " as " + kept[i]->asname;
  }
  return out;
}

}  // namespace cyclefix
