// `cyclefix graph`: the import-time graph as Graphviz dot or JSON.
#include "cli_common.hpp"

#include <iostream>

#include "cycle_report.hpp"
#include "progress.hpp"

namespace cyclefix::cli {

namespace {

int run_graph(const CommonOptions& o, const std::string& format) {
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  if (format == "dot") {
    write_dot(std::cout, a, r);
  } else {
    std::cout << analysis_json(a, r)["graph"].dump(2) << "\n";
  }
  if (!o.json_out.empty() && !write_json(o.json_out, analysis_json(a, r))) return kExitError;
  return kExitOk;
}

class GraphCommand final : public Command {
 public:
  explicit GraphCommand(CLI::App& app) {
    graph = app.add_subcommand("graph", "Export the import-time module graph");
    add_common(graph, graph_opts);
    graph->add_option("--format", graph_format, "dot or json")->check(CLI::IsMember({"dot", "json"}));
  }
  bool chosen() const override { return static_cast<bool>(*graph); }
  bool configure() override { return apply_config(*graph, graph_opts); }
  int run(const std::vector<std::string>& args) override {
    return run_graph(graph_opts, graph_format);
  }

 private:
  CommonOptions graph_opts;
  std::string graph_format = "dot";
  CLI::App* graph = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_graph_command(CLI::App& app) { return std::make_unique<GraphCommand>(app); }

}  // namespace cyclefix::cli
