// Choosing the cuts: which module-level import statements on a cycle may be
// deferred (and why not, for the others), what each would cost, and the
// minimum-cost set whose deferral leaves no import-time cycle (cut_solver.cpp),
// or, with only_failing, no entry point that the simulator predicts to fail.
// Sees modules, edges, statements and uses; no syntax trees.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
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
};

// Cost model (docs/planner.md): one unit per function that gains a local import,
// plus a fixed cost per deferred statement and per TYPE_CHECKING entry.
inline constexpr double kCostPerFunction = 1.0;
inline constexpr double kCostPerStatement = 0.5;
inline constexpr double kCostPerTypeCheckingEntry = 0.25;

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
};

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
};

CutPlan plan_cuts(const Analysis& a, const CycleReport& cycles, const PlanOptions& options);

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
