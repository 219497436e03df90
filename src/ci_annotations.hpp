// The main command's findings as CI annotations: GitHub Actions workflow
// commands (`::error file=F,line=L,title=T::message`, shown on the pull
// request's diff) and GitLab Code Quality JSON (the merge request widget).
// A finding is an entry point the simulator predicts to fail with a circular
// import (one per module, both entry modes merged, anchored at the failing
// statement) or a cut the diff makes (anchored at the deferred import). Turns
// data into text; runs nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "simulator.hpp"

namespace cyclefix {

struct CiFinding {
  std::string check;     // "cyclefix/circular-import" or "cyclefix/import-to-defer"
  bool certain_failure = false;  // an entry point that certainly fails: the most severe kind
  bool failure = false;          // an entry point predicted to fail (certainly or not)
  std::string file;      // display path (relative to the working directory when below it)
  int line = 0;
  std::string title;     // one line
  std::string summary;   // one line
  std::string details;   // more lines (the import chain, the loops broken), may be empty
  std::string identity;  // what the finding is about, without line numbers: keeps fingerprints stable
};

// Failing entry points first (by module name), then the cuts (by file and line).
// `cuts`: indexes into plan.candidates of the cuts the rewrite made.
std::vector<CiFinding> ci_findings(const Analysis& a, const CycleReport& r, const CutPlan& plan,
                                   const std::vector<int>& cuts, const BothModes& before);

// GitHub's escaping (actions/toolkit command.ts): in the message % CR LF become
// %25 %0D %0A; in a property value also ':' and ',' become %3A %2C.
std::string github_escape_data(std::string_view s);
std::string github_escape_property(std::string_view s);

// One `::error` (certain failure) or `::warning` line per finding.
std::string github_workflow_commands(const std::vector<CiFinding>& findings);

// GitLab Code Quality report: an array of {type, check_name, description,
// content.body, categories, fingerprint, severity, location.path,
// location.lines.begin}. Severity: critical (certain failure), major (uncertain
// failure), minor (cut). The fingerprint hashes the check and the identity, so
// it stays when lines move; a repeated identity gets an ordinal.
nlohmann::json gitlab_code_quality(const std::vector<CiFinding>& findings);

}  // namespace cyclefix
