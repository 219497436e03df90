// Cycle baselines for CI: record the import cycles a tree has today, then fail
// only on cycles that are new. A cycle is keyed by what survives unrelated
// edits: module names and the normalised text of the import statements that
// make its edges, never line numbers.
//
// Precisely: the baseline holds, per cyclic component, its modules and every
// (importer, imported, statement) triple of the import-time edges inside it.
// An edge of today's graph is known when one of its statements' triples is in
// the baseline (any component); a component is known when all of its edges
// inside it are known, and new otherwise. A new cycle always shows up as an
// unknown edge: a strongly connected set of known edges was already strongly
// connected when the baseline was written.
#pragma once

#include <compare>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "cycle_report.hpp"

namespace cyclefix {

inline constexpr int kBaselineVersion = 1;

struct BaselineEdge {
  std::string from, to;  // dotted module names
  std::string statement;  // normalize_statement() of the import that makes the edge
  auto operator<=>(const BaselineEdge&) const = default;
};

struct BaselineCycle {
  std::vector<std::string> modules;  // sorted
  std::vector<BaselineEdge> edges;   // sorted, unique
};

struct Baseline {
  std::vector<BaselineCycle> cycles;  // sorted by first module
};

// Comments dropped, backslash continuations, parentheses, a trailing comma and
// blank runs folded: `from a import (\n  x,  # why\n  y,\n)` -> "from a import x, y".
std::string normalize_statement(std::string_view text);

// The baseline of today's cycles.
Baseline make_baseline(const Analysis& a, const CycleReport& r);

// {"cyclefix_baseline": 1, "cycles": [{"modules": [...], "edges": [{"from", "to", "statement"}]}]}
nlohmann::json baseline_json(const Baseline& b);
// False with `*err` on a version or shape this build does not read.
bool baseline_from_json(const nlohmann::json& j, Baseline* b, std::string* err);
bool read_baseline(const std::filesystem::path& file, Baseline* b, std::string* err);
// Pretty-printed, sorted, newline-terminated: reviewable in a diff.
bool write_baseline(const std::filesystem::path& file, const Baseline& b, std::string* err);

struct UnknownEdge {
  ModuleId from = 0, to = 0;
  std::string file;       // display path of the first statement making the edge
  int line = 0;
  std::string statement;  // its first line, as in the cycles report
};

struct BaselineComparison {
  std::string file;                 // the baseline read
  std::vector<bool> is_new;         // per component of the report
  std::vector<std::vector<UnknownEdge>> unknown_edges;  // per component: edges not in the baseline
  std::vector<BaselineCycle> gone;  // baseline cycles none of whose edges is on a cycle today
  std::size_t new_count() const;
};

BaselineComparison compare_with_baseline(const Analysis& a, const CycleReport& r, const Baseline& b);

// After the cycles report: "baseline FILE: N known, M new", then each new
// cycle with the edges that make it new, file:line per edge.
void print_baseline_comparison(std::ostream& out, const Analysis& a, const CycleReport& r,
                               const BaselineComparison& c);
// The `baseline` object of the JSON report (docs/json-report.md).
nlohmann::json baseline_comparison_json(const Analysis& a, const CycleReport& r, const BaselineComparison& c);

}  // namespace cyclefix
