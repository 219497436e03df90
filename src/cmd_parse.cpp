// `cyclefix parse`: read and parse only, the baseline for benchmarks.
#include "cli_common.hpp"

#include <chrono>
#include <iostream>

#include "progress.hpp"

namespace cyclefix::cli {

namespace {

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

class ParseCommand final : public Command {
 public:
  explicit ParseCommand(CLI::App& app) {
    parse = app.add_subcommand("parse", "Only read and parse the files (benchmark baseline)");
    add_common(parse, parse_opts, false);
  }
  bool chosen() const override { return static_cast<bool>(*parse); }
  bool configure() override { return apply_config(*parse, parse_opts); }
  int run(const std::vector<std::string>& args) override {
    return run_parse(parse_opts);
  }

 private:
  CommonOptions parse_opts;
  CLI::App* parse = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_parse_command(CLI::App& app) { return std::make_unique<ParseCommand>(app); }

}  // namespace cyclefix::cli
