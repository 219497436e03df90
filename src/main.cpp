// The cyclefix command line: turns CLI11 options into calls into the library.

#include <CLI/CLI.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>

#include "analysis.hpp"
#include "apply.hpp"
#include "baseline.hpp"
#include "config.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "facts_cache.hpp"
#include "html_report.hpp"
#include "progress.hpp"
#include "reach_report.hpp"
#include "rewrite.hpp"
#include "run_record.hpp"
#include "sarif.hpp"
#include "simulator.hpp"
#include "split_patches.hpp"
#include "unified_diff.hpp"
#include "verify.hpp"

namespace {

using namespace cyclefix;

constexpr int kExitOk = 0;
constexpr int kExitFound = 1;  // cycles found (cycles, plan), a change would be made (--check)
constexpr int kExitError = 2;  // bad usage, or something asked for could not be done

struct CommonOptions {
  std::vector<std::string> paths;
  std::vector<std::string> roots;
  std::vector<std::string> excludes;
  std::string config;  // --config; empty: the nearest pyproject.toml with [tool.cyclefix] above the first PATH
  unsigned jobs = 0;
  std::string json_out;
  std::size_t max_loops = 100;
  std::uint64_t max_file_size_mb = kDefaultMaxFileSize >> 20;
  bool quiet = false;
  bool simulate = true;
  std::string cache_dir;  // --cache-dir; empty: default_cache_dir()
  bool no_cache = false;
  std::string config_file;                // the pyproject.toml read (apply_config), if any
  const Discovery* discovered = nullptr;  // the files, when run_recorded already found them
};

// The interpreter simulations predict for (one per run, whatever the command).
std::string g_target_platform, g_target_python;

void add_common(CLI::App* app, CommonOptions& o, bool with_json = true) {
  app->add_option("--platform", g_target_platform,
                  "sys.platform the simulator decides `if sys.platform ...` tests for (default: this machine's)");
  app->add_option("--python-version", g_target_python,
                  "Python version (3.N) the simulator decides `if sys.version_info ...` tests for "
                  "(default: the python3 on PATH)");
  app->add_option("paths", o.paths, "Files or directories to analyse (default: .)");
  app->add_option("--root", o.roots, "Source root (repeatable); detected when omitted");
  app->add_option("--exclude", o.excludes, "Skip paths matching this glob (repeatable)");
  app->add_option("--config", o.config,
                  "Read [tool.cyclefix] from this pyproject.toml (default: the nearest one above the first PATH)");
  app->add_option("-j,--jobs", o.jobs, "Parallel parser threads (default: all cores)");
  app->add_option("--max-file-size", o.max_file_size_mb,
                  "Skip files larger than this many MiB (default: 16)");
  app->add_flag("-q,--quiet", o.quiet, "Do not print per-file problems on stderr");
  app->add_option("--cache-dir", o.cache_dir,
                  "Cache per-file facts in DIR (default: $XDG_CACHE_HOME/cyclefix or ~/.cache/cyclefix)");
  app->add_flag("--no-cache", o.no_cache, "Neither read nor write the facts cache");
  if (with_json) app->add_option("--json", o.json_out, "Write the JSON report to FILE ('-' = stdout)");
}

AnalysisOptions to_analysis_options(const CommonOptions& o, Progress* progress = nullptr) {
  AnalysisOptions a;
  for (auto& p : o.paths) a.discovery.paths.emplace_back(p);
  for (auto& r : o.roots) a.discovery.roots.emplace_back(r);
  a.discovery.excludes = o.excludes;
  a.jobs = o.jobs;
  a.max_file_size = o.max_file_size_mb << 20;
  if (!o.no_cache)
    a.cache_dir = o.cache_dir.empty() ? default_cache_dir(a.discovery.paths) : std::filesystem::path(o.cache_dir);
  a.progress = progress;
  a.discovered = o.discovered;
  return a;
}

// analyse(), then the per-file problems on stderr (and why an asked-for cache
// could not be used); the progress line is cleared first.
Analysis analyse_and_report(const CommonOptions& o, Progress& progress) {
  Analysis a = analyse(to_analysis_options(o, &progress));
  progress.clear();
  if (!o.quiet) print_diagnostics(std::cerr, a);
  if (!o.quiet && !o.cache_dir.empty() && !a.cache_problem.empty())
    std::cerr << "cyclefix: facts cache not used: " << a.cache_problem << "\n";
  return a;
}

// [tool.cyclefix] (config.hpp) fills in what the command line of `cmd` left
// out: a flag given there wins. Plan and rewrite settings apply where the
// command has them. False, with the message printed, on a configuration error.
bool apply_config(const CLI::App& cmd, CommonOptions& o, PlanOptions* po = nullptr, RewriteOptions* ro = nullptr,
                  std::string* target_version = nullptr) {
  ProjectConfig c;
  std::string err;
  bool ok = o.config.empty() ? find_config(o.paths.empty() ? "." : o.paths.front(), &c, &err)
                             : load_config(o.config, &c, &err);
  if (!ok) {
    std::cerr << err << "\n";
    return false;
  }
  o.config_file = c.file.string();
  auto unset = [&](const char* flag) { return cmd.count(flag) == 0; };
  if (c.roots && unset("--root"))
    for (const auto& r : *c.roots) o.roots.push_back(r.string());
  if (c.exclude && unset("--exclude")) o.excludes = *c.exclude;
  if (po) {
    if (c.only_failing && unset("--only-failing")) po->only_failing = *c.only_failing;
    if (c.allow_init_cuts && unset("--allow-init-cuts")) po->allow_init_cuts = *c.allow_init_cuts;
    if (c.time_limit_s && unset("--time-limit")) po->time_limit_s = *c.time_limit_s;
    if (c.runtime_evaluated_base_classes) po->runtime.base_classes = *c.runtime_evaluated_base_classes;
    if (c.runtime_evaluated_decorators) po->runtime.decorators = *c.runtime_evaluated_decorators;
  }
  if (ro) {
    if (c.note && unset("--note")) ro->note = *c.note;
    if (c.noqa && unset("--noqa")) ro->noqa = *c.noqa;
  }
  if (target_version && c.target_version && unset("--target-version")) *target_version = *c.target_version;
  return true;
}

// Writes JSON to a file or stdout; false (with a message) when the file cannot be written.
bool write_json(const std::string& where, const nlohmann::json& j) {
  if (where.empty()) return true;
  if (where == "-") {
    std::cout << j.dump(2) << "\n";
    return true;
  }
  std::ofstream f(where);
  f << j.dump(2) << "\n";
  if (!f) {
    std::cerr << "cyclefix: cannot write " << where << "\n";
    return false;
  }
  return true;
}

// Runs `body`, a command that reads the tree and prints (and writes --json FILE),
// or gives back what the same run printed, wrote and returned before
// (run_record.hpp). The key: the arguments, the working directory, the bytes of
// the configuration and of `inputs` (other files the command reads), and
// fingerprint_inputs() of the tree; the facts cache's directory is per build.
// Failed runs (exit 2) are not recorded. --no-cache turns it off.
int run_recorded(const CommonOptions& o, const std::vector<std::string>& args, std::vector<std::string> inputs,
                 const std::function<int(const CommonOptions&)>& body) {
  const AnalysisOptions ao = to_analysis_options(o);
  if (ao.cache_dir.empty()) return body(o);
  FactsCache cache(ao.cache_dir);
  if (!cache.enabled()) return body(o);  // the analysis says why
  const Discovery discovered = discover(ao.discovery);
  std::string key;
  auto field = [&](std::string_view s) {
    key += std::to_string(s.size());
    key += ':';
    key += s;
  };
  field("cyclefix run");
  for (const auto& a : args) field(a);
  field(std::filesystem::current_path().string());
  if (!o.config_file.empty()) inputs.push_back(o.config_file);
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    field(path);
    field(in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string("\0unreadable", 11));
  }
  field(fingerprint_inputs(discovered, ao).hex());
  const ContentHash id = hash_bytes(key);

  if (std::optional<std::string> bytes = cache.load_record(id)) {
    if (std::optional<RecordedRun> run = decode_run(*bytes)) {
      std::cout << run->out << std::flush;
      std::cerr << run->err;
      for (const auto& [path, content] : run->files) {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f << content;
        if (!f.flush()) {
          std::cerr << "cyclefix: cannot write " << path << "\n";
          return kExitError;
        }
      }
      return run->exit_code;
    }
  }
  CommonOptions with = o;
  with.discovered = &discovered;
  RecordedRun run;
  {
    StreamTee out(std::cout, run.out), err(std::cerr, run.err);
    run.exit_code = body(with);
  }
  if (run.exit_code != kExitOk && run.exit_code != kExitFound) return run.exit_code;
  if (!o.json_out.empty() && o.json_out != "-") {
    std::ifstream in(o.json_out, std::ios::binary);
    if (!in) return run.exit_code;
    run.files.emplace_back(o.json_out, std::string(std::istreambuf_iterator<char>(in), {}));
  }
  cache.store_record(id, encode_run(run));
  return run.exit_code;
}

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
  Analysis a = analyse_and_report(o, progress);
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

int run_graph(const CommonOptions& o, const std::string& format) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  if (format == "dot") {
    write_dot(std::cout, a, r);
  } else {
    std::cout << analysis_json(a, r)["graph"].dump(2) << "\n";
  }
  if (!o.json_out.empty() && !write_json(o.json_out, analysis_json(a, r))) return kExitError;
  return kExitOk;
}

int run_reach(const CommonOptions& o) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
  Reachability r = compute_reachability(a.files, a.modules, true);
  if (o.json_out != "-") write_reach_text(std::cout, a, r);
  if (!o.json_out.empty() && !write_json(o.json_out, reach_json(a, r))) return kExitError;
  return kExitOk;
}

int run_simulate(const CommonOptions& o, const std::string& entry) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
  release_rewrite_facts(a);
  std::vector<EntryMode> modes;
  if (entry == "normal" || entry == "both") modes.push_back(EntryMode::Normal);
  if (entry == "bare" || entry == "both") modes.push_back(EntryMode::Bare);
  if (entry == "lazy" || entry == "all") modes.push_back(EntryMode::Lazy);
  if (entry == "all") modes.insert(modes.begin(), {EntryMode::Normal, EntryMode::Bare});
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

struct VerifyCli {
  std::string python = "python3";
  std::string entry = "normal";
  bool compare = false;
  std::string emit_test;
  double timeout = 30;
};

// Imports every module first in a fresh interpreter; optionally compares with
// the simulator's predictions and writes a pytest file that does the same check.
int run_verify(const CommonOptions& o, const VerifyCli& v) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
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
  std::vector<EntryMode> modes;
  if (v.entry == "normal" || v.entry == "both") modes.push_back(EntryMode::Normal);
  if (v.entry == "bare" || v.entry == "both") modes.push_back(EntryMode::Bare);
  if (v.entry == "lazy" || v.entry == "all") modes.push_back(EntryMode::Lazy);
  if (v.entry == "all") modes.insert(modes.begin(), {EntryMode::Normal, EntryMode::Bare});
  nlohmann::json runs = nlohmann::json::array();
  std::size_t circular = 0, disagreements = 0;
  for (EntryMode mode : modes) {
    VerifyOptions vo;
    vo.python = v.python;
    vo.mode = mode;
    vo.jobs = o.jobs;
    vo.timeout_s = v.timeout;
    progress.phase("verify");
    auto results = verify_modules(modules, roots, vo);
    progress.clear();
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

int run_plan(const CommonOptions& o, const PlanOptions& po) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
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

struct FixCli {
  bool apply = false;
  bool check = false;
  bool explain = false;
  std::string target_version = "3.9";
  std::string split_by;  // --split-by package|owner|cycle: patches into out_dir instead of the diff
  std::string out_dir;
};

// Entry points predicted to import before and to fail (certainly or not) after:
// a deferred import can change the order modules load in and expose another loop.
std::vector<std::string> newly_failing(const Analysis& a, const SimulationResult& before, const Analysis& after_a,
                                       const SimulationResult& after) {
  std::set<std::string> ok_before;
  for (const EntryPrediction& e : before.entries)
    if (!e.fails) ok_before.insert(display_name(a.modules[e.module]));
  std::vector<std::string> out;
  for (const EntryPrediction& e : after.entries) {
    std::string name = display_name(after_a.modules[e.module]);
    if (e.fails && ok_before.count(name))
      out.push_back(name + " (" + std::string(to_string(after.mode)) + " entry" +
                    (e.uncertain ? ", uncertain" : "") + "): " + e.message);
  }
  return out;
}

// The product: plan the cuts, rewrite, print the diff (or write it with --apply).
int run_fix(const CommonOptions& o, const PlanOptions& po, RewriteOptions ro, const FixCli& f) {
  auto dot = f.target_version.find('.');
  if (f.target_version.rfind("3.", 0) != 0 || dot == std::string::npos || f.target_version.size() == 2 ||
      f.target_version.size() > 4 ||
      f.target_version.find_first_not_of("0123456789", dot + 1) != std::string::npos) {
    std::cerr << "cyclefix: --target-version must look like 3.9 (got '" << f.target_version << "')\n";
    return kExitError;
  }
  ro.target_minor = std::stoi(f.target_version.substr(dot + 1));
  if (f.split_by.empty() != f.out_dir.empty() || (!f.split_by.empty() && (f.apply || f.check || f.explain))) {
    std::cerr << "cyclefix: --split-by and --out-dir go together, and without --apply, --check or --explain\n";
    return kExitError;
  }
  std::optional<CodeOwners> owners;
  if (f.split_by == "owner") {  // before the analysis: fail fast
    std::string err;
    owners = find_codeowners(std::filesystem::current_path(), &err);
    if (!owners) {
      std::cerr << "cyclefix: --split-by owner: "
                << (err.empty() ? "no CODEOWNERS, .github/CODEOWNERS or docs/CODEOWNERS in the repository root "
                                  "(the nearest directory holding .git, or the current one)"
                                : err)
                << "\n";
      return kExitError;
    }
  }
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  progress.phase("simulate");
  const BothModes before_sim = simulate_both(a);  // for the plan's guard and the summary
  progress.phase("plan");
  PlanOptions guarded = po;
  guarded.before = &before_sim;
  CutPlan plan = plan_cuts(a, r, guarded);
  progress.clear();
  // The JSON report is only built when asked for: on large trees it costs as much as the analysis.
  nlohmann::json j = o.json_out.empty() ? nlohmann::json::object() : analysis_json(a, r);
  if (!o.json_out.empty()) j.update(plan_json(a, r, plan));
  if (f.explain) {
    if (o.json_out != "-") print_plan(std::cout, a, r, plan);
    if (!write_json(o.json_out, j)) return kExitError;
    return plan.remaining_cycles ? kExitFound : kExitOk;
  }
  progress.phase("rewrite");
  RewriteResult rw = rewrite(a, r, plan, ro);
  progress.clear();
  for (const auto& p : rw.problems)
    std::cerr << p.file << (p.line ? ":" + std::to_string(p.line) : "") << ": " << p.message << "\n";

  std::size_t functions = 0, local_imports = 0, tc = 0;
  nlohmann::json files = nlohmann::json::array();
  for (const FileRewrite& fr : rw.files) {
    functions += fr.functions;
    local_imports += fr.local_imports;
    tc += fr.type_checking_entries;
    const std::string& display = a.files[fr.file].source.display;
    files.push_back({{"file", display}, {"cuts", fr.cuts.size()}, {"local_imports", fr.local_imports},
                     {"functions", fr.functions}, {"type_checking", fr.type_checking_entries},
                     {"quoted_annotations", fr.quoted_annotations}});
    if (!f.apply && !f.check && f.split_by.empty() && o.json_out != "-")
      std::cout << unified_diff(fr.before, fr.after, display);
  }
  progress.phase("simulate");
  const auto& [normal_before, bare_before] = before_sim;
  Analysis after_a = analysis_after(a, rw);
  CycleReport after_r = build_cycle_report(after_a, o.max_loops);
  release_rewrite_facts(after_a);  // nothing rewrites it
  auto [normal_after, bare_after] = simulate_both(after_a);
  const std::pair<std::size_t, std::size_t> before{normal_before.failing(), bare_before.failing()};
  const std::pair<std::size_t, std::size_t> after{normal_after.failing(), bare_after.failing()};
  std::vector<std::string> regressions = newly_failing(a, normal_before, after_a, normal_after);
  for (auto& r2 : newly_failing(a, bare_before, after_a, bare_after)) regressions.push_back(std::move(r2));
  progress.clear();
  for (const auto& glob : plan.unmatched_select) std::cerr << "cyclefix: --select '" << glob << "' matches no module\n";
  std::cerr << "cyclefix: " << r.components.size() << " import cycle(s)"
            << (plan.skipped_by_select ? " (" + std::to_string(plan.skipped_by_select) + " skipped by --select)" : "")
            << "; " << rw.cuts_applied << " of "
            << plan.cuts.size() << " cut(s) made in " << rw.files.size() << " file(s): " << local_imports
            << " local import(s) in " << functions << " function(s), " << tc << " TYPE_CHECKING entr"
            << (tc == 1 ? "y" : "ies") << "; failing entry points (predicted) normal " << before.first << " -> "
            << after.first << ", bare " << before.second << " -> " << after.second << "; "
            << after_r.components.size() << " import cycle(s) left\n";
  for (const auto& r2 : regressions)
    std::cerr << "cyclefix: warning: predicted to import before the rewrite and to fail after it: " << r2 << "\n";
  j["rewrite"] = {{"files", files},
                  {"cuts_applied", rw.cuts_applied},
                  {"newly_failing", regressions},
                  {"problems", nlohmann::json::array()},
                  {"failing_before", {{"normal", before.first}, {"bare", before.second}}},
                  {"failing_after", {{"normal", after.first}, {"bare", after.second}}},
                  {"cycles_after", after_r.components.size()}};
  for (const auto& p : rw.problems)
    j["rewrite"]["problems"].push_back({{"file", p.file}, {"line", p.line}, {"message", p.message}});
  int rc = rw.problems.empty() ? kExitOk : kExitError;
  if (!f.split_by.empty()) {
    PatchSplit split = split_patches(a, r, plan, rw, *parse_split_by(f.split_by), owners ? &*owners : nullptr);
    std::vector<std::string> written;
    std::string err;
    bool ok = write_split_patches(f.out_dir, a, r, plan, rw, split, &written, &err);
    for (const auto& w : written) (o.json_out == "-" ? std::cerr : std::cout) << "wrote " << w << "\n";
    j["rewrite"]["patches"] = split_json(f.out_dir, a, rw, split);
    if (!ok) {
      std::cerr << "cyclefix: " << err << "\n";
      rc = kExitError;
    }
  }
  if (f.apply && !rw.files.empty()) {
    std::vector<FileWrite> writes;
    for (const FileRewrite& fr : rw.files)
      writes.push_back({a.files[fr.file].source.path, a.files[fr.file].source.display, fr.before, fr.after});
    ApplyOptions apply_options;
    apply_options.roots = allowed_roots(o.paths);
    ApplyOutcome out = apply_writes(writes, apply_options);
    // With --json - the report owns stdout.
    for (const auto& w : out.written) (o.json_out == "-" ? std::cerr : std::cout) << "wrote " << w << "\n";
    for (const auto& e : out.errors) std::cerr << "cyclefix: " << e << "\n";
    j["rewrite"]["written"] = out.written;
    j["rewrite"]["write_errors"] = out.errors;
    if (!out.errors.empty()) rc = kExitError;
  }
  if (!write_json(o.json_out, j)) return kExitError;
  if (f.check && !rw.files.empty() && rc == kExitOk) return kExitFound;
  return rc;
}

// The HTML report: the main command's plan and rewrite, each cycle drawn (html_report.hpp).
int run_report(const CommonOptions& o, const PlanOptions& po, const RewriteOptions& ro, const std::string& html_out) {
  HtmlReportOptions ho;
  if (!find_program(ho.dot)) {  // before the analysis: fail fast, write nothing
    std::cerr << "cyclefix: " << graphviz_missing_message(ho.dot) << "\n";
    return kExitError;
  }
  Progress progress(Progress::wanted(o.quiet));
  Analysis a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  progress.phase("simulate");
  const BothModes before_sim = simulate_both(a);
  const auto& [normal, bare_r] = before_sim;
  attach_failures(r, normal, bare_r);
  progress.phase("plan");
  PlanOptions guarded = po;
  guarded.before = &before_sim;
  CutPlan plan = plan_cuts(a, r, guarded);
  progress.phase("rewrite");
  RewriteResult rw = rewrite(a, r, plan, ro);
  progress.phase("simulate");
  Analysis after_a = analysis_after(a, rw);
  release_rewrite_facts(after_a);  // nothing rewrites it
  auto [normal_after, bare_after] = simulate_both(after_a);
  ReportOutcome out{{normal.failing(), bare_r.failing()}, {normal_after.failing(), bare_after.failing()},
                    build_cycle_report(after_a, o.max_loops).components.size()};
  progress.phase("draw");
  std::string html, err;
  bool ok = render_html_report(a, r, plan, rw, out, ho, &html, &err);
  progress.clear();
  for (const auto& p : rw.problems)
    std::cerr << p.file << (p.line ? ":" + std::to_string(p.line) : "") << ": " << p.message << "\n";
  if (!ok) {
    std::cerr << "cyclefix: " << err << "\n";
    return kExitError;
  }
  std::ofstream f(html_out, std::ios::binary);
  f << html;
  if (!f) {
    std::cerr << "cyclefix: cannot write " << html_out << "\n";
    return kExitError;
  }
  std::cerr << "cyclefix: wrote " << html_out << " (" << r.components.size() << " import cycle(s), "
            << plan.cuts.size() << " cut(s), " << html.size() << " bytes)\n";
  return kExitOk;
}

// Reads and parses every file and nothing more: the baseline for benchmarks.
int run_parse(const CommonOptions& o) {
  auto start = std::chrono::steady_clock::now();
  Progress progress(Progress::wanted(o.quiet));
  AnalysisOptions opts = to_analysis_options(o, &progress);
  opts.parse_only = true;
  Analysis a = analyse(opts);
  progress.clear();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t parsed = 0;
  for (auto& f : a.files) parsed += f.analysed;
  std::cout << "parsed " << parsed << " of " << a.files.size() << " files, " << a.total_lines
            << " lines, " << a.total_bytes << " bytes in " << secs << " s\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f), a write should fail with EFBIG and be
  // reported, not kill the process between files.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"cyclefix: finds and breaks Python import cycles"};
  app.set_version_flag("--version", std::string("cyclefix ") + CYCLEFIX_VERSION);
  app.require_subcommand(0, 1);
  // The main command: `cyclefix [PATH...]` prints the diff that breaks the cycles.
  CommonOptions fix_opts;
  PlanOptions fix_plan;
  RewriteOptions fix_rewrite;
  FixCli fix;
  add_common(&app, fix_opts);
  app.add_flag("--apply", fix.apply, "Write the changes (each file atomically) instead of printing the diff");
  app.add_flag("--check", fix.check, "Print no diff (the summary still goes to stderr); exit 1 when a change would be made (for CI)");
  app.add_flag("--explain", fix.explain, "Print the plan (what would be deferred, and why) instead of the diff");
  app.add_flag("--note,!--no-note", fix_rewrite.note, "Comment naming the loop on moved imports (default: on)");
  app.add_flag("--noqa,!--no-noqa", fix_rewrite.noqa, "Append ruff/pylint suppressions (PLC0415) to moved imports");
  app.add_option("--target-version", fix.target_version,
                 "Oldest Python the code runs on (default 3.9; from 3.14 annotations are not quoted)");
  app.add_flag("--allow-init-cuts,!--no-allow-init-cuts", fix_plan.allow_init_cuts,
               "Allow deferring imports in package __init__.py files (public API by default)");
  app.add_flag("--only-failing,!--no-only-failing", fix_plan.only_failing,
               "Only break the cycles through which some entry point fails in the simulator; harmless cycles stay");
  app.add_option("--time-limit", fix_plan.time_limit_s, "Seconds for the solver (default 10; 0: no limit)");
  app.add_option("--select", fix_plan.select,
                 "Only break the cycles holding a module that matches this glob, e.g. 'pkg.db.*' (repeatable)");
  app.add_option("--max-loops", fix_opts.max_loops, "Loops listed per cycle at most (default: 100)");
  app.add_option("--split-by", fix.split_by,
                 "Write one patch per top-level package, CODEOWNERS owner or cycle into --out-dir instead of "
                 "printing the diff")
      ->check(CLI::IsMember({"package", "owner", "cycle"}));
  app.add_option("--out-dir", fix.out_dir, "Directory for --split-by: NAME.diff and NAME.md per patch, and index.md");

  CommonOptions cycles_opts;
  auto* cycles = app.add_subcommand("cycles", "Report import-time cycles (exit 1 when there are any)");
  add_common(cycles, cycles_opts);
  cycles->add_flag("!--no-simulate", cycles_opts.simulate,
                   "Do not count failing entry points per cycle (skips the simulator)");
  cycles->add_option("--max-loops", cycles_opts.max_loops,
                     "Loops listed per cycle at most (default: 100)");
  CyclesCli cycles_cli;
  cycles->add_option("--format", cycles_cli.format, "text (default) or sarif (SARIF 2.1.0, for code scanning)")
      ->check(CLI::IsMember({"text", "sarif"}));
  cycles->add_option("--output", cycles_cli.output, "Write the --format report to FILE instead of stdout");
  auto* baseline_opt = cycles->add_option("--baseline", cycles_cli.baseline,
                                          "Exit 1 only for cycles not recorded in this baseline FILE");
  cycles->add_option("--write-baseline", cycles_cli.write_baseline, "Record the current cycles in FILE (exit 0)")
      ->excludes(baseline_opt);

  CommonOptions graph_opts;
  std::string graph_format = "dot";
  auto* graph = app.add_subcommand("graph", "Export the import-time module graph");
  add_common(graph, graph_opts);
  graph->add_option("--format", graph_format, "dot or json")->check(CLI::IsMember({"dot", "json"}));

  CommonOptions reach_opts;
  auto* reach = app.add_subcommand(
      "reach", "List, per module, the function bodies its module-level code runs (and the call chains)");
  add_common(reach, reach_opts);

  CommonOptions sim_opts;
  std::string sim_entry = "normal";
  auto* sim = app.add_subcommand("simulate",
                                 "Predict which modules fail with a circular import when imported first");
  add_common(sim, sim_opts);
  sim->add_option("--entry", sim_entry,
                  "normal (parents run first), bare (ancestors' __init__ never ran), both (normal and bare), "
                  "lazy (Python 3.15's -X lazy_imports=all, PEP 810), or all (the three)")
      ->check(CLI::IsMember({"normal", "bare", "both", "lazy", "all"}));

  CommonOptions ver_opts;
  VerifyCli ver;
  auto* verify = app.add_subcommand(
      "verify", "Import every module first in a fresh interpreter and classify ok / circular / other");
  add_common(verify, ver_opts);
  verify->add_option("--python", ver.python, "Interpreter to run (default: python3)");
  verify->add_option("--entry", ver.entry,
                     "normal, bare, both, lazy (runs --python with -X lazy_imports=all: Python 3.15+), or all")
      ->check(CLI::IsMember({"normal", "bare", "both", "lazy", "all"}));
  verify->add_flag("--compare", ver.compare, "Also run the simulator and list every disagreement (exit 1 if any)");
  verify->add_option("--emit-test", ver.emit_test, "Write a self-contained pytest file doing the same check");
  verify->add_option("--timeout", ver.timeout, "Seconds per import before the interpreter is killed (default 30)");

  CommonOptions plan_opts;
  PlanOptions plan_cfg;
  auto* plan = app.add_subcommand("plan", "Choose the minimum-cost set of imports to defer, and say why");
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

  CommonOptions report_opts;
  PlanOptions report_plan;
  RewriteOptions report_rewrite;
  std::string report_html;
  auto* report = app.add_subcommand("report", "Write an HTML page drawing each cycle, its cuts and the diff");
  add_common(report, report_opts, false);
  report->add_option("--html", report_html, "Write the report to FILE (needs Graphviz's dot)")->required();
  report->add_flag("--allow-init-cuts,!--no-allow-init-cuts", report_plan.allow_init_cuts,
                   "Allow deferring imports in package __init__.py files");
  report->add_flag("--only-failing,!--no-only-failing", report_plan.only_failing,
                   "Only break the cycles through which some entry point fails in the simulator");
  report->add_option("--time-limit", report_plan.time_limit_s, "Seconds for the solver (default 10; 0: no limit)");
  report->add_option("--select", report_plan.select, "Only plan the cycles holding a module matching this glob");
  report->add_option("--max-loops", report_opts.max_loops, "Loops listed per cycle at most (default: 100)");

  CommonOptions parse_opts;
  auto* parse = app.add_subcommand("parse", "Only read and parse the files (benchmark baseline)");
  add_common(parse, parse_opts, false);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }

  try {
    // [tool.cyclefix] fills in what the chosen command's flags left out.
    bool configured = *cycles   ? apply_config(*cycles, cycles_opts)
                      : *graph  ? apply_config(*graph, graph_opts)
                      : *reach  ? apply_config(*reach, reach_opts)
                      : *parse  ? apply_config(*parse, parse_opts)
                      : *sim    ? apply_config(*sim, sim_opts)
                      : *verify ? apply_config(*verify, ver_opts)
                      : *plan   ? apply_config(*plan, plan_opts, &plan_cfg)
                      : *report ? apply_config(*report, report_opts, &report_plan, &report_rewrite)
                                : apply_config(app, fix_opts, &fix_plan, &fix_rewrite, &fix.target_version);
    if (!configured) return kExitError;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!g_target_platform.empty() || !g_target_python.empty()) {
      SimulationTarget t;
      t.platform = g_target_platform;
      t.os_name = g_target_platform.empty() ? "" : g_target_platform == "win32" ? "nt" : "posix";
      if (!g_target_python.empty()) {
        if (std::sscanf(g_target_python.c_str(), "%d.%d", &t.major, &t.minor) != 2 || t.major < 2) {
          std::cerr << "cyclefix: --python-version must look like 3.12 (got '" << g_target_python << "')\n";
          return kExitError;
        }
      }
      set_simulation_target(t);
    }
    if (*cycles) {
      // A run that writes a baseline or an --output file is not replayed.
      if (!cycles_cli.write_baseline.empty() || !cycles_cli.output.empty())
        return run_cycles(cycles_opts, cycles_cli);
      std::vector<std::string> inputs;
      if (!cycles_cli.baseline.empty()) inputs.push_back(cycles_cli.baseline);
      return run_recorded(cycles_opts, args, inputs, [&](const CommonOptions& o) { return run_cycles(o, cycles_cli); });
    }
    if (*graph) return run_graph(graph_opts, graph_format);
    if (*reach) return run_reach(reach_opts);
    if (*parse) return run_parse(parse_opts);
    if (*sim) return run_simulate(sim_opts, sim_entry);
    if (*verify) return run_verify(ver_opts, ver);
    if (*plan) return run_recorded(plan_opts, args, {}, [&](const CommonOptions& o) { return run_plan(o, plan_cfg); });
    if (*report) return run_report(report_opts, report_plan, report_rewrite, report_html);
    if (fix.apply || !fix.split_by.empty()) return run_fix(fix_opts, fix_plan, fix_rewrite, fix);  // they write the tree
    return run_recorded(fix_opts, args, {},
                        [&](const CommonOptions& o) { return run_fix(o, fix_plan, fix_rewrite, fix); });
  } catch (const std::exception& e) {
    std::cerr << "cyclefix: fatal: " << e.what() << "\n";
    return kExitError;
  }
  return kExitError;
}
