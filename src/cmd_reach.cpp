// `cyclefix reach`: per module, the function bodies its module-level code runs.
#include "cli_common.hpp"

#include <iostream>

#include "progress.hpp"
#include "reach_report.hpp"

namespace cyclefix::cli {

namespace {

int run_reach(const CommonOptions& o) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
  Reachability r = compute_reachability(a.files, a.modules, true);
  if (o.json_out != "-") write_reach_text(std::cout, a, r);
  if (!o.json_out.empty() && !write_json(o.json_out, reach_json(a, r))) return kExitError;
  return kExitOk;
}

class ReachCommand final : public Command {
 public:
  explicit ReachCommand(CLI::App& app) {
    reach = app.add_subcommand(
        "reach", "List, per module, the function bodies its module-level code runs (and the call chains)");
    add_common(reach, reach_opts);
  }
  bool chosen() const override { return static_cast<bool>(*reach); }
  bool configure() override { return apply_config(*reach, reach_opts); }
  int run(const std::vector<std::string>& args) override {
    return run_reach(reach_opts);
  }

 private:
  CommonOptions reach_opts;
  CLI::App* reach = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_reach_command(CLI::App& app) { return std::make_unique<ReachCommand>(app); }

}  // namespace cyclefix::cli
