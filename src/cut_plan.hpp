// Choosing the cuts: which module-level import statements on a cycle may be
// deferred (and why not, for the others), what each would cost, and the
// minimum-cost set whose deferral leaves no import-time cycle (cut_solver.cpp),
// or, with only_failing, no entry point that the simulator predicts to fail.
// Sees modules, edges, statements and uses; no syntax trees.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis.hpp"
#include "cycle_report.hpp"
#include "runtime_annotations.hpp"
#include "simulator.hpp"

namespace cyclefix {

struct PlanOptions {
  bool allow_init_cuts = false;  // names imported in a package __init__ are public API by default
  double time_limit_s = 10;      // <= 0: no limit (per solve; --only-failing solves once per round)
  bool exact = true;
  // Instead of leaving the graph acyclic, leave no entry point that the simulator
  // predicts to fail with a circular import, in either entry mode (--only-failing).
  bool only_failing = false;
  // --select: plan only the cyclic components holding a module whose dotted name
  // matches one of these fnmatch(3) globs (`*` also matches dots); the others get
  // no cuts and are not counted as remaining. Empty: every component.
  std::vector<std::string> select;
  // Pin a cut whose deferral would make an entry point that imports today fail
  // (simulated in both entry modes), and plan again without it. `before`: the
  // simulation of the tree as it is, when the caller has it already.
  bool guard = true;
  const BothModes* before = nullptr;
  // Bases and decorators whose annotations libraries read at run time, beyond
  // the defaults: names in those annotations are never moved under TYPE_CHECKING.
  RuntimeAnnotationOptions runtime;
  // Python 3.<minor> the code must run on (--target-version): from 3.15 a cut
  // may be made by writing `lazy` in front of the import (PEP 810).
  int target_minor = 9;
  // --prefer-lazy (target >= 3.15): function-local imports kept local to avoid
  // a cycle become module-level `lazy` imports where that is safe (LazyHoist).
  bool prefer_lazy = false;
  // --allow-late-imports (--only-failing): an import whose module reads back a
  // name this module defines below it may move below that definition
  // (Strategy::MoveBelow). Linters flag it (E402), so only when asked.
  bool allow_late_imports = false;
  // --no-extract turns this off: a loop that nothing else breaks may be broken
  // by moving definitions into a new module (Strategy::Extract).
  bool extract = true;
  // Called once, without --only-failing, when the candidates are assessed and
  // before the guard simulates, with the files whose name uses the plan and the
  // rewrite still read (1: keep; those holding a candidate statement). The main
  // command frees the others' (release_rewrite_facts_except) to lower its peak.
  std::function<void(const std::vector<char>& keep)> release_uses;
};

// Cost model (docs/planner.md), in lines of the diff (added + removed) plus
// penalties for what reviewers dislike: deferring removes the statement (one
// line per line it spans) and adds, per function that uses it, a local import
// and its note (two lines) plus a penalty of one for the function-local
// import; a TYPE_CHECKING entry is one line. Rewriting a statement in place
// (bypass) removes its lines and adds one per statement written. Any change to
// a package __init__.py (public API, imported by everything below it) adds a
// penalty of two.
inline constexpr double kCostPerStatementLine = 1.0;
inline constexpr double kCostPerFunction = 3.0;
inline constexpr double kCostPerTypeCheckingEntry = 1.0;
inline constexpr double kCostPackageInit = 2.0;
// A line changed in place (removed and added).
inline constexpr double kCostChangedLine = 2.0;

// How a cut breaks its edges.
enum class Strategy {
  Defer,   // move into the functions that use it, annotations under TYPE_CHECKING (move_into_functions)
  Bypass,  // import each name from the module that defines it, which does not import back (bypass_reexport)
  // --only-failing: import the module instead of names from it, and read the
  // names through it where they are used, all in functions (late_binding). The
  // edge stays (a cycle is left, harmless); the import can no longer fail.
  LateBind,
  // Python >= 3.15: `lazy ` in front of the module-level statement (PEP 810), when
  // no name it binds is read at import time: the import runs on first use, after
  // the cycle has loaded (lazy_import).
  Lazy,
  // --only-failing --allow-late-imports: the module-level statement moves down,
  // below the definition the other module reads back while this one is
  // partially initialised (move_below). The edge stays; the name is there by then.
  MoveBelow,
  // A `from M import n` pinned because n is read at import time, with no
  // re-export to bypass: n's definition in M (with the definitions of M it
  // reads) moves to a new module beside M that imports no module of the loop;
  // M imports the names back from it and the statement imports them from it
  // (extract_module, then bypass_reexport for the statement).
  Extract,
};
std::string_view to_string(Strategy s);
// Late binding and a move below leave the edge in the graph (the loop stays,
// harmless): they fix a failure rather than break a loop.
bool keeps_edge(Strategy s);

// One name of a bypassed statement: `from <module> import <name> as <bound>`,
// or `import <module> as <bound>` when name is empty.
struct BypassName {
  std::string bound;   // the name the statement binds (kept)
  std::string module;  // as written: relative (".messages") when the statement was relative and it can be
  std::string name;    // the name in `module`, or "" for a module import
};

// What an extraction (Strategy::Extract) moves out of the defining module's file.
struct Extraction {
  int file = -1;                  // the defining module's file (index into Analysis::files)
  std::string module;             // the new module, dotted
  std::filesystem::path path;     // its file, beside the defining module's
  std::string display;
  // The module-level statements that move, as byte ranges of whole lines of
  // the defining file, in source order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> statements;
  std::size_t lines = 0;          // lines they span
  // The defining module's own import statements the moved code reads from
  // (indexes into its facts.imports), each with the names it reads: written
  // into the new module (they import no module of the loop).
  std::vector<std::pair<int, std::vector<std::string>>> imports;
  std::vector<std::string> names;  // every name that moves, in source order (the defining module imports them back)
};

// Late binding of `from <module> import n, m as k`: the statement that binds
// the module instead, and the attribute each bound name is read as.
struct LateBinding {
  std::string statement;  // e.g. "from . import b", "import b", "from pkg import b"
  std::string prefix;     // the name it binds ("b"): uses of n become `b.n`
  std::vector<std::pair<std::string, std::string>> names;  // (bound name, attribute of the module)
  double cost = 0;        // 0: late binding does not apply (see `refusal`)
  std::string refusal;    // why not, for the plan (empty when it applies or was not asked)
  std::string cost_terms;
};

// A module-level import statement on some cycle, and whether it can be deferred.
struct CandidateStatement {
  int file = -1;
  int import = -1;
  bool cuttable = false;
  std::string reason;                     // why not, naming the use that pins it
  std::vector<std::string> names;         // names it binds
  std::vector<std::string> functions;     // qualified names of the functions that use them
  std::vector<std::string> type_checking; // names used in annotations (go under TYPE_CHECKING)
  double cost = 0;
  std::vector<ModuleId> targets;          // first-party modules it makes run
  Strategy strategy = Strategy::Defer;    // for a cuttable statement: the cheapest safe one
  std::string how;                        // the strategy's reason (Bypass: where each name is defined)
  std::vector<BypassName> bypass;         // Bypass: the names, in the statement's order
  double defer_cost = 0;                  // what deferring would cost (0: it cannot be deferred)
  std::string cost_terms;                 // how `cost` adds up, e.g. "1 (statement line) + 2 x 3 (functions)"
  LateBinding late;                       // --only-failing: the late-binding alternative to deferring
  bool lazy_eligible = false;             // no name is read at import time: `lazy` may cut it (target >= 3.15)
  std::string lazy_refusal;               // why `lazy` does not cut it when it could be deferred
  std::string bypass_refusal;             // why its names cannot come from where they are defined (a re-export)
  bool split = false;                     // --only-failing: `names` move, the statement's other names stay
  // MoveBelow: the module-level definition the statement goes below (index
  // into the file's facts.definitions).
  int below = -1;
  int below_line = 0;  // the line that definition's statement ends on
  Extraction extract;  // Extract: what moves to the new module (`bypass` names it for the statement)
};

// One sentence for a cut, for CI annotations and SARIF: what to do to
// `statement` (by strategy) and the loop it breaks or, when the edge stays,
// whose failure it fixes; `detail` (if any) in parentheses after the
// statement. No final period.
std::string cut_summary(const CandidateStatement& c, std::string_view statement, const std::vector<std::string>& loops,
                        const std::string& detail = {});

// --prefer-lazy: function-local imports of one module, in one file, that are
// local only because the module imports this one back at import time, written
// once at module level as a `lazy` import (PEP 810) and removed from the
// functions (rewriters/hoist_lazy.cpp). Nothing reads the names at import
// time, so the lazy import adds no import-time edge.
struct LazyHoist {
  int file = -1;
  std::vector<int> imports;       // the local import statements it replaces, in source order
  std::string statement;          // as written at module level, e.g. "lazy from .b import f, g as h"
  std::vector<std::string> functions;  // qualified names of the functions they are in
  std::vector<ModuleId> loop;     // importer -> ... -> importer: the cycle a module-level eager import would close
  std::vector<int> type_checking; // imports under `if TYPE_CHECKING:` of the same names from the same module (removed)
};

// A local import --prefer-lazy considered (its module imports the file's module
// back) and left local, with the reason.
struct KeptLocal {
  int file = -1;
  int import = -1;
  std::string reason;
};

// The hoists of --prefer-lazy (cut_plan's options.prefer_lazy), in file and line order.
std::vector<LazyHoist> plan_lazy_hoists(const Analysis& a, std::vector<KeptLocal>* kept);

// Entry points the simulator predicts to fail with a circular import, per entry mode.
struct FailingCounts {
  std::size_t normal = 0, bare = 0;
};

struct CutPlan {
  std::vector<CandidateStatement> candidates;  // every statement on a cyclic edge, sorted by file, line
  std::vector<int> cuts;                       // indexes into candidates, sorted
  double cost = 0, lower_bound = 0;
  bool optimal = false;
  double gap = 0;
  std::string method;
  double seconds = 0;
  std::vector<std::vector<ModuleId>> unbreakable_loops;  // loops of uncuttable statements only
  std::size_t remaining_cycles = 0;  // cyclic components left after the cuts (selected ones only)
  std::size_t skipped_by_select = 0;          // cyclic components with no module matching --select
  std::vector<std::string> unmatched_select;  // --select globs that match no module at all

  // only_failing mode. Loop: simulate both entry modes with the cuts deferred;
  // each certain circular failure gives a loop (from the partially initialised
  // module's hop to the failing one, and back), which the cuts must hit; solve
  // the minimum-cost hitting problem (solve_hitting) over every loop found so far;
  // repeat until a round finds no new loop. unbreakable_loops are then the failing
  // loops with no removable edge, and `optimal` is relative to the loops found.
  bool only_failing = false;
  FailingCounts failing_before, failing_after;      // without cuts, with the plan's cuts
  FailingCounts uncertain_before, uncertain_after;  // of those, uncertain: they drive no cuts
  std::size_t rounds = 0;         // simulations of both modes
  std::size_t failure_loops = 0;  // distinct loops the cuts hit
  bool converged = true;          // false: stopped while a failure the cuts should fix was still there
  std::size_t guarded = 0;  // statements pinned because deferring them breaks an entry point (PlanOptions::guard)
  int target_minor = 9;           // PlanOptions::target_minor
  // --allow-late-imports: statements a failure asked to move below a
  // definition, and why they were not (file, import, reason).
  std::vector<std::tuple<int, int, std::string>> not_moved_below;
  std::vector<LazyHoist> hoists;  // --prefer-lazy
  std::vector<KeptLocal> kept_local;
};

// A statement the planner could not defer (`pinned`) that one of `cuts` changes
// another way (a split, a bypass, a late binding, a move below): how, as the
// plan text and split patches print it ("split, move-below"); "" for none.
std::string changed_instead(const CutPlan& plan, const std::vector<int>& cuts, const CandidateStatement& pinned);

CutPlan plan_cuts(const Analysis& a, const CycleReport& cycles, const PlanOptions& options);

// One statement a bypassed cut is rewritten to: `head` ("from M import ", or
// the whole "import M as n") and, for a from-import, its names ("a", "b as c").
struct WrittenImport {
  std::string head;
  std::vector<std::string> names;
  std::vector<std::string> bound;  // the names it binds in the module
  std::string text() const;        // on one line
};
// The statements a bypassed cut is rewritten to, without indentation: one
// `from M import ...` per origin module (in the order the names came), an
// `import M as n` per module.
std::vector<WrittenImport> bypass_imports(const CandidateStatement& c);
// Their texts, one line each.
std::vector<std::string> bypass_statements(const CandidateStatement& c);
// A lazy cut's statement as written: `lazy ` + the statement, or for a split
// the new `lazy from M import n` line (the statement keeps its other names).
std::vector<std::string> lazy_statements(const FileAnalysis& fa, const CandidateStatement& c);

// The uses a late-bound cut rewrites (`n` -> `b.n`): every use of a name the
// statement binds, in functions, by byte offset (one per offset).
std::vector<const NameUse*> late_bound_uses(const FileAnalysis& fa, const CandidateStatement& c);

// The loops of the report (modules, first == last) through an edge the cut's statement makes.
std::vector<std::vector<ModuleId>> loops_through(const Analysis& a, const CycleReport& cycles,
                                                 const CandidateStatement& cut);

// The loops of the report that a cut breaks (indexes into the flattened list of
// the report's loops).
std::vector<std::string> loops_broken_by(const Analysis& a, const CycleReport& cycles,
                                         const CandidateStatement& cut);

nlohmann::json plan_json(const Analysis& a, const CycleReport& cycles, const CutPlan& plan);
void print_plan(std::ostream& out, const Analysis& a, const CycleReport& cycles, const CutPlan& plan);

}  // namespace cyclefix
