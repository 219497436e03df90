// The cyclefix command line: turns CLI11 options into calls into the library.

#include <CLI/CLI.hpp>

#include <chrono>
#include <fstream>
#include <iostream>

#include "analysis.hpp"
#include "cycle_report.hpp"
#include "simulator.hpp"

namespace {

using namespace cyclefix;

constexpr int kExitOk = 0;
constexpr int kExitFound = 1;
constexpr int kExitError = 2;

struct CommonOptions {
  std::vector<std::string> paths;
  std::vector<std::string> roots;
  std::vector<std::string> excludes;
  unsigned jobs = 0;
  std::string json_out;
  std::size_t max_loops = 100;
  std::uint64_t max_file_size_mb = kDefaultMaxFileSize >> 20;
  bool quiet = false;
};

void add_common(CLI::App* app, CommonOptions& o, bool with_json = true) {
  app->add_option("paths", o.paths, "Files or directories to analyse (default: .)");
  app->add_option("--root", o.roots, "Source root (repeatable); detected when omitted");
  app->add_option("--exclude", o.excludes, "Skip paths matching this glob (repeatable)");
  app->add_option("-j,--jobs", o.jobs, "Parallel parser threads (default: all cores)");
  app->add_option("--max-file-size", o.max_file_size_mb,
                  "Skip files larger than this many MiB (default: 16)");
  app->add_flag("-q,--quiet", o.quiet, "Do not print per-file problems on stderr");
  if (with_json) app->add_option("--json", o.json_out, "Write the JSON report to FILE ('-' = stdout)");
}

AnalysisOptions to_analysis_options(const CommonOptions& o) {
  AnalysisOptions a;
  for (auto& p : o.paths) a.discovery.paths.emplace_back(p);
  for (auto& r : o.roots) a.discovery.roots.emplace_back(r);
  a.discovery.excludes = o.excludes;
  a.jobs = o.jobs;
  a.max_file_size = o.max_file_size_mb << 20;
  return a;
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

int run_cycles(const CommonOptions& o) {
  Analysis a = analyse(to_analysis_options(o));
  if (!o.quiet) print_diagnostics(std::cerr, a);
  CycleReport r = build_cycle_report(a, o.max_loops);
  if (o.json_out != "-") print_cycles(std::cout, a, r);
  if (!write_json(o.json_out, analysis_json(a, r))) return kExitError;
  return r.components.empty() ? kExitOk : kExitFound;
}

int run_graph(const CommonOptions& o, const std::string& format) {
  Analysis a = analyse(to_analysis_options(o));
  if (!o.quiet) print_diagnostics(std::cerr, a);
  CycleReport r = build_cycle_report(a, o.max_loops);
  if (format == "dot") {
    write_dot(std::cout, a, r);
  } else {
    std::cout << analysis_json(a, r)["graph"].dump(2) << "\n";
  }
  if (!o.json_out.empty() && !write_json(o.json_out, analysis_json(a, r))) return kExitError;
  return kExitOk;
}

int run_simulate(const CommonOptions& o, const std::string& entry) {
  Analysis a = analyse(to_analysis_options(o));
  if (!o.quiet) print_diagnostics(std::cerr, a);
  std::vector<EntryMode> modes;
  if (entry == "normal" || entry == "both") modes.push_back(EntryMode::Normal);
  if (entry == "bare" || entry == "both") modes.push_back(EntryMode::Bare);
  nlohmann::json runs = nlohmann::json::array();
  std::size_t failing = 0;
  for (EntryMode m : modes) {
    SimulationResult r = simulate(a, m);
    failing += r.failing();
    if (o.json_out != "-") print_simulation(std::cout, a, r);
    runs.push_back(simulation_json(a, r));
  }
  nlohmann::json j = runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
  if (!write_json(o.json_out, j)) return kExitError;
  return failing ? kExitFound : kExitOk;
}

// Reads and parses every file and nothing more: the baseline for benchmarks.
int run_parse(const CommonOptions& o) {
  auto start = std::chrono::steady_clock::now();
  AnalysisOptions opts = to_analysis_options(o);
  opts.parse_only = true;
  Analysis a = analyse(opts);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t parsed = 0;
  for (auto& f : a.files) parsed += f.analysed;
  std::cout << "parsed " << parsed << " of " << a.files.size() << " files, " << a.total_lines
            << " lines, " << a.total_bytes << " bytes in " << secs << " s\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cyclefix: finds and breaks Python import cycles"};
  app.set_version_flag("--version", std::string("cyclefix ") + CYCLEFIX_VERSION);
  app.require_subcommand(1);

  CommonOptions cycles_opts;
  auto* cycles = app.add_subcommand("cycles", "Report import-time cycles (exit 1 when there are any)");
  add_common(cycles, cycles_opts);
  cycles->add_option("--max-loops", cycles_opts.max_loops,
                     "Loops listed per cycle at most (default: 100)");

  CommonOptions graph_opts;
  std::string graph_format = "dot";
  auto* graph = app.add_subcommand("graph", "Export the import-time module graph");
  add_common(graph, graph_opts);
  graph->add_option("--format", graph_format, "dot or json")->check(CLI::IsMember({"dot", "json"}));

  CommonOptions sim_opts;
  std::string sim_entry = "normal";
  auto* sim = app.add_subcommand("simulate",
                                 "Predict which modules fail with a circular import when imported first");
  add_common(sim, sim_opts);
  sim->add_option("--entry", sim_entry, "normal (parents run first), bare (ancestors' __init__ never ran), or both")
      ->check(CLI::IsMember({"normal", "bare", "both"}));

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
    if (*cycles) return run_cycles(cycles_opts);
    if (*graph) return run_graph(graph_opts, graph_format);
    if (*parse) return run_parse(parse_opts);
    if (*sim) return run_simulate(sim_opts, sim_entry);
  } catch (const std::exception& e) {
    std::cerr << "cyclefix: fatal: " << e.what() << "\n";
    return kExitError;
  }
  return kExitError;
}
