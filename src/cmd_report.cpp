// `cyclefix report --html FILE`: the main command's plan and rewrite, each cycle drawn.
#include "cli_common.hpp"

#include <fstream>
#include <iostream>

#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "html_report.hpp"
#include "progress.hpp"
#include "rewrite.hpp"
#include "simulator.hpp"

namespace cyclefix::cli {

namespace {

// The HTML report: the main command's plan and rewrite, each cycle drawn (html_report.hpp).
int run_report(const CommonOptions& o, const PlanOptions& po, const RewriteOptions& ro, const std::string& html_out) {
  HtmlReportOptions ho;
  if (!find_program(ho.dot)) {  // before the analysis: fail fast, write nothing
    std::cerr << "cyclefix: " << graphviz_missing_message(ho.dot) << "\n";
    return kExitError;
  }
  Progress progress(Progress::wanted(o.quiet));
  Analysis& a = analyse_and_report(o, progress);
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
  Analysis after_a = analysis_after(a, rw, o.jobs);
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

class ReportCommand final : public Command {
 public:
  explicit ReportCommand(CLI::App& app) {
    report = app.add_subcommand("report", "Write an HTML page drawing each cycle, its cuts and the diff");
    add_common(report, report_opts, false);
    report->add_option("--html", report_html, "Write the report to FILE (needs Graphviz's dot)")->required();
    report->add_flag("--allow-init-cuts,!--no-allow-init-cuts", report_plan.allow_init_cuts,
                     "Allow deferring imports in package __init__.py files");
    report->add_flag("--only-failing,!--no-only-failing", report_plan.only_failing,
                     "Only break the cycles through which some entry point fails in the simulator");
    report->add_option("--time-limit", report_plan.time_limit_s, "Seconds for the solver (default 10; 0: no limit)");
    report->add_option("--select", report_plan.select, "Only plan the cycles holding a module matching this glob");
    report->add_option("--max-loops", report_opts.max_loops, "Loops listed per cycle at most (default: 100)");
  }
  bool chosen() const override { return static_cast<bool>(*report); }
  bool configure() override { return apply_config(*report, report_opts, &report_plan, &report_rewrite); }
  int run(const std::vector<std::string>& args) override {
    return run_report(report_opts, report_plan, report_rewrite, report_html);
  }

 private:
  CommonOptions report_opts;
  PlanOptions report_plan;
  RewriteOptions report_rewrite;
  std::string report_html;
  CLI::App* report = nullptr;
};

}  // namespace

std::unique_ptr<Command> add_report_command(CLI::App& app) { return std::make_unique<ReportCommand>(app); }

}  // namespace cyclefix::cli
