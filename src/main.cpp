// The cyclefix command line: each command's options and flow are in
// cmd_<command>.cpp; this file lists the commands and runs the one chosen.

#include <CLI/CLI.hpp>

#include <csignal>
#include <iostream>

#include "cli_common.hpp"

// jemalloc's settings, read when the binary runs on it (CMakeLists.txt links it
// when installed; otherwise nothing reads this). Freed pages go back to the
// system within a second, by jemalloc's own thread, instead of staying dirty for
// ten: each stage's transient data (the call resolver, a simulation's tables)
// comes and goes, and the default left the RSS of one stage's garbage under the
// next stage's peak. On the 50,000-file benchmark tree the main command's peak
// went from 2,394 to about 2,270 MiB, at the same speed (docs/architecture.md).
// MALLOC_CONF in the environment still overrides it.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's interface
const char* malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}

int main(int argc, char** argv) {
  using namespace cyclefix::cli;
  // Past a file-size limit (ulimit -f), a write should fail with EFBIG and be
  // reported, not kill the process between files.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"cyclefix: finds and breaks Python import cycles"};
  app.set_version_flag("--version", std::string("cyclefix ") + CYCLEFIX_VERSION);
  app.require_subcommand(0, 1);
  // The main command: `cyclefix [PATH...]` prints the diff that breaks the cycles.
  std::unique_ptr<Command> fix = add_fix_command(app);
  std::unique_ptr<Command> subcommands[] = {add_cycles_command(app),   add_graph_command(app),
                                            add_reach_command(app),    add_simulate_command(app),
                                            add_verify_command(app),   add_plan_command(app),
                                            add_report_command(app),   add_parse_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }

  try {
    Command* chosen = fix.get();
    for (auto& c : subcommands)
      if (c->chosen()) chosen = c.get();
    // [tool.cyclefix] fills in what the chosen command's flags left out.
    if (!chosen->configure()) return kExitError;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!apply_simulation_target()) return kExitError;
    return chosen->run(args);
  } catch (const std::exception& e) {
    std::cerr << "cyclefix: fatal: " << e.what() << "\n";
    return kExitError;
  }
  return kExitError;
}
