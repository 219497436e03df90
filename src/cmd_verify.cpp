// `cyclefix verify`: every module imported first in a fresh interpreter, optionally
// compared with the simulator.
#include "cli_common.hpp"

#include <fstream>
#include <iostream>

#include "progress.hpp"
#include "simulator.hpp"
#include "verify.hpp"

namespace cyclefix::cli {

namespace {

struct VerifyCli {
  std::string python = "python3";
  std::string entry = "normal";
  bool compare = false;
  std::string emit_test;
  double timeout = 30;
  std::string isolation = "fork";
  bool no_bytecode_cache = false;
};

// Imports every module first in a fresh interpreter; optionally compares with
// the simulator's predictions and writes a pytest file that does the same check.
int run_verify(const CommonOptions& o, const VerifyCli& v) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
  std::vector<std::string> modules, roots;
  std::vector<ModuleId> ids;
  for (ModuleId m = 0; m < a.modules.size(); ++m) {
    if (a.modules[m].is_namespace || a.modules[m].file < 0) continue;
    modules.push_back(a.modules[m].name);
    ids.push_back(m);
  }
  for (const auto& r : a.discovery.roots) roots.push_back(r.string());
  if (!v.emit_test.empty()) {
    PytestFileOptions po;
    po.file_dir = std::filesystem::absolute(v.emit_test).parent_path();
    std::ofstream f(v.emit_test);
    f << pytest_file(modules, roots, po);
    if (!f) {
      std::cerr << "cyclefix: cannot write " << v.emit_test << "\n";
      return kExitError;
    }
    std::cerr << "cyclefix: wrote " << v.emit_test << " (" << modules.size() << " modules, both entry modes)\n";
  }
  const std::vector<EntryMode> modes = entry_modes(v.entry);
  nlohmann::json runs = nlohmann::json::array();
  std::size_t circular = 0, disagreements = 0;
  for (EntryMode mode : modes) {
    VerifyOptions vo;
    vo.python = v.python;
    vo.mode = mode;
    vo.jobs = o.jobs;
    vo.timeout_s = v.timeout;
    vo.isolation = *parse_isolation(v.isolation);
    vo.bytecode_cache = !v.no_bytecode_cache;
    std::vector<std::string> notes;
    vo.note = [&](const std::string& text) { notes.push_back(text); };
    progress.phase("verify");
    auto results = verify_modules(modules, roots, vo);
    progress.clear();
    for (const auto& n : notes) std::cerr << "cyclefix: verify: " << n << "\n";
    nlohmann::json j = verify_json(results, vo);
    std::size_t counts[3] = {0, 0, 0};
    for (const auto& r : results) counts[static_cast<int>(r.outcome)]++;
    circular += counts[static_cast<int>(ImportOutcome::Circular)];
    if (o.json_out != "-") {
      std::cout << "cyclefix verify (" << to_string(mode) << " entry, " << v.python << "): " << results.size()
                << " modules: " << counts[0] << " ok, " << counts[1] << " circular, " << counts[2] << " other\n";
      for (const auto& r : results)
        if (r.outcome != ImportOutcome::Ok)
          std::cout << "  " << to_string(r.outcome) << "  " << r.module << ": " << r.error_type << ": "
                    << r.message.substr(0, 200) << "\n";
    }
    if (v.compare) {
      SimulationResult sim = simulate(a, mode, ids);
      nlohmann::json diffs = nlohmann::json::array();
      std::size_t table[2][2] = {{0, 0}, {0, 0}};  // [predicted circular][real circular]
      for (std::size_t i = 0; i < results.size(); ++i) {
        bool real = results[i].outcome == ImportOutcome::Circular;
        bool predicted = sim.entries[i].fails && sim.entries[i].circular;
        if (results[i].outcome == ImportOutcome::Other) continue;  // only ok vs circular are compared
        table[predicted][real]++;
        if (real != predicted) {
          diffs.push_back({{"module", results[i].module},
                           {"real", to_string(results[i].outcome)},
                           {"real_message", results[i].message},
                           {"predicted", predicted ? "circular" : "ok"},
                           {"predicted_message", sim.entries[i].message},
                           {"uncertain", sim.entries[i].uncertain}});
        }
      }
      disagreements += diffs.size();
      j["compare"] = {{"disagreements", diffs},
                      {"confusion", {{"predicted_circular_real_circular", table[1][1]},
                                     {"predicted_circular_real_ok", table[1][0]},
                                     {"predicted_ok_real_circular", table[0][1]},
                                     {"predicted_ok_real_ok", table[0][0]}}}};
      if (o.json_out != "-") {
        std::cout << "  compared with the simulator (modules whose real outcome is ok or circular):\n"
                  << "                      real circular   real ok\n"
                  << "    predicted circular  " << table[1][1] << "               " << table[1][0] << "\n"
                  << "    predicted ok        " << table[0][1] << "               " << table[0][0] << "\n";
        for (const auto& d : diffs)
          std::cout << "    disagree: " << d["module"].get<std::string>() << ": real " << d["real"].get<std::string>()
                    << ", predicted " << d["predicted"].get<std::string>() << "\n";
      }
    }
    runs.push_back(j);
  }
  nlohmann::json out = runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
  if (!write_json(o.json_out, out)) return kExitError;
  if (v.compare) return disagreements ? kExitFound : kExitOk;
  return circular ? kExitFound : kExitOk;
}

class VerifyCommand final : public Command {
 public:
  explicit VerifyCommand(CLI::App& app) {
    verify = app.add_subcommand(
        "verify", "Import every module first in a fresh interpreter and classify ok / circular / other");
    add_common(verify, ver_opts);
    verify->add_option("--python", ver.python, "Interpreter to run (default: python3)");
    verify->add_option("--entry", ver.entry, "normal, bare, both, lazy (runs --python with -X lazy_imports=all: Python 3.15+), or all")
        ->check(CLI::IsMember(kEntryChoices));
    verify->add_flag("--compare", ver.compare, "Also run the simulator and list every disagreement (exit 1 if any)");
    verify->add_option("--emit-test", ver.emit_test, "Write a self-contained pytest file doing the same check");
    verify->add_option("--timeout", ver.timeout, "Seconds per import before the interpreter is killed (default 30)");
    verify->add_option("--isolation", ver.isolation,
                       "fork: one interpreter per job forks a clean child per module (default); "
                       "process: a fresh interpreter per module")
        ->check(CLI::IsMember({"fork", "process"}));
    verify->add_flag("--no-bytecode-cache", ver.no_bytecode_cache,
                     "Write no bytecode at all (PYTHONDONTWRITEBYTECODE=1) instead of compiling each file once "
                     "per run into a private temporary PYTHONPYCACHEPREFIX");
  }
  bool chosen() const override { return static_cast<bool>(*verify); }
  bool configure() override { return apply_config(*verify, ver_opts); }
  int run(const std::vector<std::string>& args) override {
    return run_verify(ver_opts, ver);
  }

 private:
  CommonOptions ver_opts;
  VerifyCli ver;
  CLI::App* verify = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_verify_command(CLI::App& app) { return std::make_unique<VerifyCommand>(app); }

}  // namespace cyclefix::cli
