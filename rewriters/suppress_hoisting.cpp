// suppress-hoisting (--noqa): appends the suppressions that stop linters from
// reporting, and autofixers from hoisting, an import inside a function:
//
//       from .program import Program  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
//
// Why: ruff (PLC0415) and pylint (import-outside-toplevel) flag local imports;
// a team that enforces them would otherwise have to annotate each by hand.
// What can go wrong: nothing that changes code; an existing trailing comment
// is kept in front of the suppressions.
#include "rewriter.hpp"

namespace cyclefix {

void suppress_hoisting(const RewriteInput& in, AtomicChange& change) {
  if (!in.options.noqa) return;
  for (LocalImport& li : change.local_imports)
    li.trailing += "  # noqa: PLC0415  # pylint: disable=import-outside-toplevel";
}

}  // namespace cyclefix
