// `cyclefix plan`: the minimum-cost set of imports to defer, and why the others stay.
#include "cli_common.hpp"

#include <iostream>

#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "progress.hpp"

namespace cyclefix::cli {

namespace {

int run_plan(const CommonOptions& o, PlanOptions po, const std::string& target_version) {
  if (!parse_target_version(target_version, &po.target_minor)) return kExitError;
  simulate_at_least(po.target_minor);
  if (!check_prefer_lazy(po)) return kExitError;
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  progress.phase("plan");
  CutPlan plan = plan_cuts(a, r, po);
  progress.clear();
  if (o.json_out != "-") print_plan(std::cout, a, r, plan);
  // The JSON report is only built when asked for: on large trees it costs as much as the analysis.
  nlohmann::json j = o.json_out.empty() ? nlohmann::json::object() : analysis_json(a, r);
  if (!o.json_out.empty()) j.update(plan_json(a, r, plan));
  if (!write_json(o.json_out, j)) return kExitError;
  return plan.remaining_cycles ? kExitFound : kExitOk;
}

class PlanCommand final : public Command {
 public:
  explicit PlanCommand(CLI::App& app) {
    plan = app.add_subcommand("plan", "Choose the minimum-cost set of imports to defer, and say why");
    add_common(plan, plan_opts);
    plan->add_flag("--allow-init-cuts,!--no-allow-init-cuts", plan_cfg.allow_init_cuts,
                   "Allow deferring imports in package __init__.py files (public API by default)");
    plan->add_flag("--only-failing,!--no-only-failing", plan_cfg.only_failing,
                   "Only break the cycles through which some entry point fails in the simulator (normal or bare "
                   "entry); harmless cycles get no cuts");
    plan->add_option("--time-limit", plan_cfg.time_limit_s, "Seconds for the solver (default 10; 0: no limit)");
    plan->add_option("--select", plan_cfg.select,
                     "Only plan the cycles holding a module that matches this glob, e.g. 'pkg.db.*' (repeatable)");
    plan->add_flag("!--no-exact", plan_cfg.exact, "Use the heuristic only (no integer program)");
    plan->add_flag("--allow-late-imports,!--no-allow-late-imports", plan_cfg.allow_late_imports,
                   "With --only-failing: an import may move below the definition its module reads back (E402)");
    plan->add_flag("--extract,!--no-extract", plan_cfg.extract,
                   "A loop nothing else breaks may be broken by moving definitions to a new module (default: on)");
    plan->add_flag("--prefer-lazy,!--no-prefer-lazy", plan_cfg.prefer_lazy,
                   "With --target-version 3.15+: local imports kept local to avoid a cycle become module-level "
                   "`lazy` imports where safe");
    plan->add_option("--target-version", target_version,
                     "Oldest Python the code runs on (default 3.9; from 3.15 a cut may be a `lazy` import)");
  }
  bool chosen() const override { return static_cast<bool>(*plan); }
  bool configure() override { return apply_config(*plan, plan_opts, &plan_cfg, nullptr, &target_version); }
  int run(const std::vector<std::string>& args) override {
    return run_recorded(plan_opts, args, {}, [&](const CommonOptions& o) { return run_plan(o, plan_cfg, target_version); });
  }

 private:
  CommonOptions plan_opts;
  PlanOptions plan_cfg;
  std::string target_version = "3.9";
  CLI::App* plan = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_plan_command(CLI::App& app) { return std::make_unique<PlanCommand>(app); }

}  // namespace cyclefix::cli
