// type-checking: names of a deferred import that appear in annotations go under
// `if TYPE_CHECKING:`, so type checkers still see them; where Python evaluates
// those annotations while the module loads, the annotations are quoted.
//
//   from .program import Program            if TYPE_CHECKING:
//                                      ->       from .program import Program
//   def capture(f) -> Program:              def capture(f) -> "Program":
//
// Why: after the move the name is no longer bound at module level, so an
// annotation evaluated at definition time (no `from __future__ import
// annotations`, target below Python 3.14) would raise NameError.
//
// The whole annotation expression is quoted (`"Program | None"`, not
// `"Program" | None`, which fails at run time); annotations already in a
// string are left alone; two uses in one annotation quote it once. The block
// itself and `from typing import TYPE_CHECKING` are requested here and placed
// by the driver, merged with the other cuts of the file.
//
// What can go wrong: an annotation spanning lines, or holding both quote
// characters, is not quoted automatically: the change is refused, naming it.
#include <set>

#include <algorithm>

#include "rewriter.hpp"

namespace cyclefix {

void type_checking_entries(const RewriteInput& in, AtomicChange& change) {
  if (in.cut.strategy != Strategy::Defer) return;
  const ModuleFacts& facts = in.file.facts;
  const ImportStatement& st = facts.imports[in.cut.import];
  const std::vector<std::string> bound = st.bound_names();
  std::set<std::string> annotated;
  std::set<std::pair<std::uint32_t, std::uint32_t>> to_quote;
  const bool evaluated_eagerly = in.options.target_minor < 14;
  for (const NameUse& u : facts.uses) {
    if (u.kind != UseKind::Annotation) continue;
    if (std::find(bound.begin(), bound.end(), u.name()) == bound.end()) continue;
    annotated.insert(std::string(u.name()));
    if (evaluated_eagerly && u.eager && !u.in_string && u.annotation_end > u.annotation_begin)
      to_quote.insert({u.annotation_begin, u.annotation_end});
  }
  if (annotated.empty()) return;
  change.type_checking.push_back(
      import_subset(st, std::vector<std::string>(annotated.begin(), annotated.end()), in.source));
  for (auto [b, e] : to_quote) {
    std::string_view expr = in.source.substr(b, e - b);
    int line = 1 + static_cast<int>(std::count(in.source.begin(), in.source.begin() + b, '\n'));
    if (expr.find('\n') != std::string_view::npos) {
      change.error = "the annotation at line " + std::to_string(line) + " spans lines and would need quoting by hand";
      return;
    }
    char q = expr.find('"') == std::string_view::npos ? '"' : expr.find('\'') == std::string_view::npos ? '\'' : 0;
    if (!q) {
      change.error = "the annotation at line " + std::to_string(line) + " holds both quote characters";
      return;
    }
    change.edits.push_back({b, e - b, q + std::string(expr) + q});
    ++change.quoted_annotations;
  }
}

}  // namespace cyclefix
