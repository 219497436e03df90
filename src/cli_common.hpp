// The command line's shared wiring: the options every command takes
// (add_common), [tool.cyclefix] filling in what flags left out, the analysis
// with its per-file messages, --json output, and replayed runs. Each command's
// own options and flow live in one file, cmd_<command>.cpp (cmd_fix.cpp is the
// main command, `cyclefix [PATH...]`); main.cpp only lists them and runs the
// one chosen. Not part of cyclefix_lib: the binary alone links CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "cut_plan.hpp"
#include "progress.hpp"
#include "simulator.hpp"
#include "rewrite.hpp"

namespace cyclefix::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFound = 1;  // cycles found (cycles, plan), a change would be made (--check)
inline constexpr int kExitError = 2;  // bad usage, or something asked for could not be done

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
  Discovery* discovered = nullptr;  // the files, when run_recorded already found them (the analysis takes them)
  PrereadSources* preread = nullptr;      // and their bytes, when it read them
};

// The options of every command (and --platform, --python-version), --json unless `with_json` is false.
void add_common(CLI::App* app, CommonOptions& o, bool with_json = true);

// The entry modes an --entry value names: normal, bare, both (normal and bare),
// lazy (Python 3.15's -X lazy_imports=all, PEP 810) or all (the three).
std::vector<EntryMode> entry_modes(const std::string& entry);
inline const std::vector<std::string> kEntryChoices{"normal", "bare", "both", "lazy", "all"};

AnalysisOptions to_analysis_options(const CommonOptions& o, Progress* progress = nullptr);

// analyse(), then the per-file problems on stderr (and why an asked-for cache
// could not be used); the progress line is cleared first. The analysis lives
// until the process exits (a later call frees the one before): a command ends
// by exiting, and freeing the facts of a 50,000-file tree (1.3 GB in millions
// of small allocations) took 0.7 s that nobody waits for.
Analysis& analyse_and_report(const CommonOptions& o, Progress& progress);

// [tool.cyclefix] (config.hpp) fills in what the command line of `cmd` left
// out: a flag given there wins. Plan and rewrite settings apply where the
// command has them. False, with the message printed, on a configuration error.
bool apply_config(const CLI::App& cmd, CommonOptions& o, PlanOptions* po = nullptr, RewriteOptions* ro = nullptr,
                  std::string* target_version = nullptr);

// The minor version of a --target-version value ("3.15" -> 15); false, with a
// message, when it is not of the form 3.N.
bool parse_target_version(const std::string& version, int* minor);

// Writes JSON to a file or stdout; false (with a message) when the file cannot be written.
bool write_json(const std::string& where, const nlohmann::json& j);

// Runs `body`, or gives back what the same run printed, wrote and returned
// before (run_record.hpp; the key is described in cli_common.cpp).
int run_recorded(const CommonOptions& o, const std::vector<std::string>& args, std::vector<std::string> inputs,
                 const std::function<int(const CommonOptions&)>& body);

// --platform and --python-version, for every simulation of this run; false
// (with a message) when --python-version is not of the form 3.N.
bool apply_simulation_target();

// --prefer-lazy only with a 3.15+ target; false, with a message, otherwise.
bool check_prefer_lazy(const PlanOptions& po);

// --target-version 3.<minor> is the oldest Python the code runs on: simulate at
// least that version (annotations, `lazy`) unless --python-version says otherwise.
void simulate_at_least(int minor);

// One command: made by its add_*_command, which adds its options to the CLI;
// after parsing, main() configures and runs the one chosen.
class Command {
 public:
  virtual ~Command() = default;
  virtual bool chosen() const = 0;  // its subcommand was given (the main command: always)
  virtual bool configure() = 0;     // [tool.cyclefix]; false on a configuration error
  virtual int run(const std::vector<std::string>& args) = 0;  // args: argv without the program name
};

// The main command's options go on `app` itself; the others add a subcommand.
std::unique_ptr<Command> add_fix_command(CLI::App& app);  // cmd_fix.cpp
std::unique_ptr<Command> add_cycles_command(CLI::App& app);
std::unique_ptr<Command> add_graph_command(CLI::App& app);
std::unique_ptr<Command> add_reach_command(CLI::App& app);
std::unique_ptr<Command> add_simulate_command(CLI::App& app);
std::unique_ptr<Command> add_verify_command(CLI::App& app);
std::unique_ptr<Command> add_plan_command(CLI::App& app);
std::unique_ptr<Command> add_report_command(CLI::App& app);
std::unique_ptr<Command> add_parse_command(CLI::App& app);

}  // namespace cyclefix::cli
