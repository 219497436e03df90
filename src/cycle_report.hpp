// Turns an Analysis into what users read: the cycles report (text and JSON)
// and the graph export (dot and JSON). No analysis happens here.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis.hpp"

namespace cyclefix {

struct Hop {
  ModuleId from = 0, to = 0;
  std::string file;       // display path of the importing file
  int line = 0;
  std::string statement;  // the import statement's text (first line if multi-line)
};

struct ReportedLoop {
  std::vector<ModuleId> modules;  // first == last
  std::vector<Hop> hops;
};

struct ReportedComponent {
  std::vector<ModuleId> modules;
  // Entry points (modules imported first) whose predicted circular-import failure
  // happens inside this component, per entry mode; -1 when not simulated.
  long failing_normal = -1;
  long failing_bare = -1;
  std::size_t edges = 0;
  std::vector<ReportedLoop> loops;
  bool capped = false;
  std::size_t edges_covered = 0;
};

struct CycleReport {
  std::vector<ReportedComponent> components;
  std::size_t max_loops = 0;
};

CycleReport build_cycle_report(const Analysis& a, std::size_t max_loops);

// The index of the cyclic component holding module `m`, or -1.
int component_of(const CycleReport& r, ModuleId m);
// The same for every module at once (-1: on no cycle), indexed by ModuleId.
std::vector<int> component_per_module(const Analysis& a, const CycleReport& r);

struct SimulationResult;
// Counts, per component, the entry points whose failure happens inside it.
void attach_failures(CycleReport& r, const SimulationResult& normal, const SimulationResult& bare);

// A module as users read it in a loop: packages end in ".__init__".
std::string display_name(const ModuleInfo& m);
// "a -> b.__init__ -> c -> a"
std::string loop_text(const Analysis& a, const std::vector<ModuleId>& loop);

// An import statement's text on one line: its first line without trailing
// spaces or backslash, with " ..." when it continues.
std::string one_line_statement(std::string_view statement_text);

void print_cycles(std::ostream& out, const Analysis& a, const CycleReport& r);
void print_diagnostics(std::ostream& out, const Analysis& a);

// The JSON report shared by `cycles` and `graph` (schema in docs/json-report.md).
nlohmann::json analysis_json(const Analysis& a, const CycleReport& r);

void write_dot(std::ostream& out, const Analysis& a, const CycleReport& r);

}  // namespace cyclefix
