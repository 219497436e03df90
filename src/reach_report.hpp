// The `cyclefix reach` report: per module, the function bodies the model
// believes run while the module's own module-level code runs, each with the
// call chain that reaches it (docs/json-report.md, "reach"). It publishes the
// model that pins imports used in those bodies, so that it can be checked
// against what CPython really runs (tests/oracle/).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis.hpp"

namespace cyclefix {

// `r` must have been computed with keep_steps.
nlohmann::json reach_json(const Analysis& a, const Reachability& r);
void write_reach_text(std::ostream& out, const Analysis& a, const Reachability& r);

}  // namespace cyclefix
