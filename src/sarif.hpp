// The cycles report as SARIF 2.1.0, for code-scanning UIs: one result per
// import cycle (rule CF001, anchored at the import statement of its first
// hop, the other hops as related locations) and one per entry point the
// simulator predicts to fail with a circular import (rule CF002, anchored at
// the failing statement, the import chain as a code flow); for the main
// command (--output-format sarif) also one per cut it makes (rule CF003,
// anchored at the import to defer). Turns data into JSON; runs nothing.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "cycle_report.hpp"

namespace cyclefix {

struct SimulationResult;
struct BaselineComparison;
struct CutPlan;

inline constexpr const char* kSarifSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

struct SarifInputs {
  const SimulationResult* normal = nullptr;  // nullptr: not simulated (no CF002 results)
  const SimulationResult* bare = nullptr;
  const BaselineComparison* baseline = nullptr;  // set: results carry baselineState new / unchanged
  // URIs are relative to this directory (uriBaseId %SRCROOT%) when the file is
  // below it, absolute file:// URIs otherwise.
  std::filesystem::path source_root;
  // Set: rule CF003 and one result per cut in `cuts` (indexes into plan->candidates).
  const CutPlan* plan = nullptr;
  std::vector<int> cuts;
};

nlohmann::json sarif_log(const Analysis& a, const CycleReport& r, const SarifInputs& in);

// `path` as a URI reference: percent-encoded, '/'-separated.
std::string uri_encode_path(const std::string& path);

}  // namespace cyclefix
