// `cyclefix cycles`: the import cycles, as text or SARIF, against an optional baseline.
#include "cli_common.hpp"

#include <fstream>
#include <iostream>
#include <optional>

#include "baseline.hpp"
#include "cycle_report.hpp"
#include "progress.hpp"
#include "sarif.hpp"
#include "simulator.hpp"

namespace cyclefix::cli {

namespace {

struct CyclesCli {
  std::string format = "text";  // text or sarif
  std::string output;           // --output: the --format report goes here instead of stdout
  std::string baseline;         // --baseline: exit 1 only for cycles not in it
  std::string write_baseline;   // --write-baseline: record today's cycles
};

int run_cycles(const CommonOptions& o, const CyclesCli& c) {
  if (c.format == "sarif" && c.output.empty() && o.json_out == "-") {
    std::cerr << "cyclefix: --format sarif and --json - both write to stdout; send one to a file (--output FILE)\n";
    return kExitError;
  }
  Baseline known;
  std::string err;
  if (!c.baseline.empty() && !read_baseline(c.baseline, &known, &err)) {  // before the analysis: fail fast
    std::cerr << "cyclefix: " << err << "\n";
    return kExitError;
  }
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  release_rewrite_facts(a);
  BothModes sim;
  bool simulated = false;
  if (!r.components.empty() && o.simulate) {
    progress.phase("simulate");
    sim = simulate_both(a);
    attach_failures(r, sim.normal, sim.bare);
    simulated = true;
  }
  progress.clear();
  std::optional<BaselineComparison> cmp;
  if (!c.baseline.empty()) {
    cmp = compare_with_baseline(a, r, known);
    cmp->file = c.baseline;
  }
  if (!c.write_baseline.empty()) {
    if (!write_baseline(c.write_baseline, make_baseline(a, r), &err)) {
      std::cerr << "cyclefix: " << err << "\n";
      return kExitError;
    }
    std::cerr << "cyclefix: wrote baseline " << c.write_baseline << " (" << r.components.size() << " import cycle(s))\n";
  }
  std::ofstream file;
  if (!c.output.empty()) file.open(c.output, std::ios::binary | std::ios::trunc);
  std::ostream& out = c.output.empty() ? std::cout : file;
  auto print_text = [&](std::ostream& to) {
    print_cycles(to, a, r);
    if (cmp) print_baseline_comparison(to, a, r, *cmp);
  };
  if (c.format == "sarif") {
    SarifInputs in{simulated ? &sim.normal : nullptr, simulated ? &sim.bare : nullptr, cmp ? &*cmp : nullptr,
                   std::filesystem::current_path()};
    out << sarif_log(a, r, in).dump(2) << "\n";
    if (!c.output.empty() && o.json_out != "-") print_text(std::cout);
  } else if (!c.output.empty() || o.json_out != "-") {
    print_text(out);
  }
  if (!c.output.empty()) {
    file.close();
    if (!file) {
      std::cerr << "cyclefix: cannot write " << c.output << "\n";
      return kExitError;
    }
  }
  // The JSON report is only built when asked for: on large trees it costs as much as the analysis.
  nlohmann::json j = o.json_out.empty() ? nlohmann::json::object() : analysis_json(a, r);
  if (cmp) j["baseline"] = baseline_comparison_json(a, r, *cmp);
  if (!write_json(o.json_out, j)) return kExitError;
  if (!c.write_baseline.empty()) return kExitOk;
  if (cmp) return cmp->new_count() ? kExitFound : kExitOk;
  return r.components.empty() ? kExitOk : kExitFound;
}

class CyclesCommand final : public Command {
 public:
  explicit CyclesCommand(CLI::App& app) {
    cycles = app.add_subcommand("cycles", "Report import-time cycles (exit 1 when there are any)");
    add_common(cycles, cycles_opts);
    cycles->add_flag("!--no-simulate", cycles_opts.simulate,
                     "Do not count failing entry points per cycle (skips the simulator)");
    cycles->add_option("--max-loops", cycles_opts.max_loops,
                       "Loops listed per cycle at most (default: 100)");
    cycles->add_option("--format", cycles_cli.format, "text (default) or sarif (SARIF 2.1.0, for code scanning)")
        ->check(CLI::IsMember({"text", "sarif"}));
    cycles->add_option("--output", cycles_cli.output, "Write the --format report to FILE instead of stdout");
    auto* baseline_opt = cycles->add_option("--baseline", cycles_cli.baseline,
                                            "Exit 1 only for cycles not recorded in this baseline FILE");
    cycles->add_option("--write-baseline", cycles_cli.write_baseline, "Record the current cycles in FILE (exit 0)")
        ->excludes(baseline_opt);
  }
  bool chosen() const override { return static_cast<bool>(*cycles); }
  bool configure() override { return apply_config(*cycles, cycles_opts); }
  int run(const std::vector<std::string>& args) override {
    // A run that writes a baseline or an --output file is not replayed.
    if (!cycles_cli.write_baseline.empty() || !cycles_cli.output.empty())
      return run_cycles(cycles_opts, cycles_cli);
    std::vector<std::string> inputs;
    if (!cycles_cli.baseline.empty()) inputs.push_back(cycles_cli.baseline);
    return run_recorded(cycles_opts, args, inputs, [&](const CommonOptions& o) { return run_cycles(o, cycles_cli); });
  }

 private:
  CommonOptions cycles_opts;
  CyclesCli cycles_cli;
  CLI::App* cycles = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_cycles_command(CLI::App& app) { return std::make_unique<CyclesCommand>(app); }

}  // namespace cyclefix::cli
