// `cyclefix simulate`: which entry points the simulator predicts to fail with a circular import.
#include "cli_common.hpp"

#include <iostream>

#include "progress.hpp"
#include "simulator.hpp"

namespace cyclefix::cli {

namespace {

int run_simulate(const CommonOptions& o, const std::string& entry) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
  release_rewrite_facts(a);
  const std::vector<EntryMode> modes = entry_modes(entry);
  nlohmann::json runs = nlohmann::json::array();
  std::size_t failing = 0;
  for (EntryMode m : modes) {
    progress.phase("simulate");
    SimulationResult r = simulate(a, m);
    progress.clear();
    failing += r.failing();
    if (o.json_out != "-") print_simulation(std::cout, a, r);
    if (!o.json_out.empty()) runs.push_back(simulation_json(a, r));  // only when asked for: it is large
  }
  nlohmann::json j = runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
  if (!write_json(o.json_out, j)) return kExitError;
  return failing ? kExitFound : kExitOk;
}

class SimulateCommand final : public Command {
 public:
  explicit SimulateCommand(CLI::App& app) {
    sim = app.add_subcommand("simulate",
                                   "Predict which modules fail with a circular import when imported first");
    add_common(sim, sim_opts);
    sim->add_option("--entry", sim_entry, "normal (parents run first), bare (ancestors' __init__ never ran), both (normal and bare), "
                    "lazy (Python 3.15's -X lazy_imports=all, PEP 810), or all (the three)")
        ->check(CLI::IsMember(kEntryChoices));
  }
  bool chosen() const override { return static_cast<bool>(*sim); }
  bool configure() override { return apply_config(*sim, sim_opts); }
  int run(const std::vector<std::string>& args) override {
    return run_simulate(sim_opts, sim_entry);
  }

 private:
  CommonOptions sim_opts;
  std::string sim_entry = "normal";
  CLI::App* sim = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_simulate_command(CLI::App& app) { return std::make_unique<SimulateCommand>(app); }

}  // namespace cyclefix::cli
