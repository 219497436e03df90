// What every command shares (cli_common.hpp).

#include "cli_common.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "config.hpp"
#include "facts_cache.hpp"
#include "run_record.hpp"
#include "simulator.hpp"

namespace cyclefix::cli {

namespace {

// The interpreter simulations predict for (one per run, whatever the command).
std::string g_target_platform, g_target_python;

}  // namespace

void add_common(CLI::App* app, CommonOptions& o, bool with_json) {
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

AnalysisOptions to_analysis_options(const CommonOptions& o, Progress* progress) {
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
  a.preread = o.preread;
  return a;
}

Analysis& analyse_and_report(const CommonOptions& o, Progress& progress) {
  // Reachable from a static (so leak checkers do not report it), never freed.
  static Analysis* kept = nullptr;
  delete kept;
  kept = nullptr;
  kept = new Analysis(analyse(to_analysis_options(o, &progress)));
  Analysis& a = *kept;
  progress.clear();
  if (!o.quiet) print_diagnostics(std::cerr, a);
  if (!o.quiet && !o.cache_dir.empty() && !a.cache_problem.empty())
    std::cerr << "cyclefix: facts cache not used: " << a.cache_problem << "\n";
  return a;
}

bool apply_config(const CLI::App& cmd, CommonOptions& o, PlanOptions* po, RewriteOptions* ro,
                  std::string* target_version) {
  ProjectConfig c;
  std::string err;
  bool ok = o.config.empty() ? find_config(o.paths.empty() ? "." : o.paths.front(), &c, &err)
                             : load_config(o.config, &c, &err);
  if (!ok) {
    std::cerr << err << "\n";
    return false;
  }
  o.config_file = c.file.string();
  // A command without the flag (`report` has no --noqa) takes the file's value.
  auto unset = [&](const char* flag) {
    const CLI::Option* opt = cmd.get_option_no_throw(flag);
    return !opt || opt->count() == 0;
  };
  if (c.roots && unset("--root"))
    for (const auto& r : *c.roots) o.roots.push_back(r.string());
  if (c.exclude && unset("--exclude")) o.excludes = *c.exclude;
  if (po) {
    if (c.only_failing && unset("--only-failing")) po->only_failing = *c.only_failing;
    if (c.allow_init_cuts && unset("--allow-init-cuts")) po->allow_init_cuts = *c.allow_init_cuts;
    if (c.prefer_lazy && unset("--prefer-lazy")) po->prefer_lazy = *c.prefer_lazy;
    if (c.allow_late_imports && unset("--allow-late-imports")) po->allow_late_imports = *c.allow_late_imports;
    if (c.extract && unset("--extract")) po->extract = *c.extract;
    if (c.time_limit_s && unset("--time-limit")) po->time_limit_s = *c.time_limit_s;
    if (c.runtime_evaluated_base_classes) po->runtime.base_classes = *c.runtime_evaluated_base_classes;
    if (c.runtime_evaluated_decorators) po->runtime.decorators = *c.runtime_evaluated_decorators;
  }
  if (ro) {
    if (c.note && unset("--note")) ro->note = *c.note;
    if (c.noqa && unset("--noqa")) ro->noqa = *c.noqa;
    if (c.line_length && unset("--line-length")) ro->line_length = *c.line_length;
  }
  if (target_version && c.target_version && unset("--target-version")) *target_version = *c.target_version;
  return true;
}

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
  profile_stage("fingerprint");  // finding and reading the files, to look the run up
  Discovery discovered = discover(ao.discovery);
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
  PrereadSources preread;
  field(fingerprint_inputs(discovered, ao, &preread).hex());
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
  with.preread = &preread;
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

bool parse_target_version(const std::string& v, int* minor) {
  const auto dot = v.find('.');
  if (v.rfind("3.", 0) != 0 || dot == std::string::npos || v.size() == 2 || v.size() > 4 ||
      v.find_first_not_of("0123456789", dot + 1) != std::string::npos) {
    std::cerr << "cyclefix: --target-version must look like 3.9 (got '" << v << "')\n";
    return false;
  }
  *minor = std::stoi(v.substr(dot + 1));
  return true;
}

void simulate_at_least(int minor) {
  if (!g_target_python.empty()) return;
  const SimulationTarget& now = simulation_target();
  if (now.major != 3 || now.minor >= minor) return;
  SimulationTarget t;
  t.major = 3;
  t.minor = minor;
  set_simulation_target(t);
}

bool check_prefer_lazy(const PlanOptions& po) {
  if (!po.prefer_lazy || po.target_minor >= 15) return true;
  std::cerr << "cyclefix: --prefer-lazy writes `lazy` imports (PEP 810): it needs --target-version 3.15 or later\n";
  return false;
}

bool apply_simulation_target() {
  if (g_target_platform.empty() && g_target_python.empty()) return true;
  SimulationTarget t;
  t.platform = g_target_platform;
  t.os_name = g_target_platform.empty() ? "" : g_target_platform == "win32" ? "nt" : "posix";
  if (!g_target_python.empty()) {
    if (std::sscanf(g_target_python.c_str(), "%d.%d", &t.major, &t.minor) != 2 || t.major < 2) {
      std::cerr << "cyclefix: --python-version must look like 3.12 (got '" << g_target_python << "')\n";
      return false;
    }
  }
  set_simulation_target(t);
  return true;
}

std::vector<EntryMode> entry_modes(const std::string& entry) {
  std::vector<EntryMode> modes;
  if (entry == "normal" || entry == "both" || entry == "all") modes.push_back(EntryMode::Normal);
  if (entry == "bare" || entry == "both" || entry == "all") modes.push_back(EntryMode::Bare);
  if (entry == "lazy" || entry == "all") modes.push_back(EntryMode::Lazy);
  return modes;
}

}  // namespace cyclefix::cli
