// The main command, `cyclefix [PATH...]`: plan the cuts, rewrite, print the diff
// (or --apply, --check, --explain, --split-by).
#include "cli_common.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "apply.hpp"
#include "ci_annotations.hpp"
#include "codeowners.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "progress.hpp"
#include "rewrite.hpp"
#include "sarif.hpp"
#include "simulator.hpp"
#include "split_patches.hpp"
#include "unified_diff.hpp"

namespace cyclefix::cli {

namespace {

struct FixCli {
  bool apply = false;
  bool check = false;
  bool explain = false;
  bool diff = false;  // --diff: print the diff also with --check or --apply (pre-commit hooks)
  std::string target_version = "3.9";
  std::string split_by;  // --split-by package|owner|cycle: patches into out_dir instead of the diff
  std::string out_dir;
  // --output-format: what goes on stdout instead of the diff (text): the JSON
  // report (json), SARIF (sarif), workflow commands (github), Code Quality JSON (gitlab).
  std::string output_format = "text";
};

// The failing entry points before the rewrite and the cuts it made (ci_annotations.hpp).
std::vector<CiFinding> rewrite_findings(const Analysis& a, const CycleReport& r, const CutPlan& plan,
                                        const RewriteResult& rw, const BothModes& before) {
  std::vector<int> cuts;
  for (const FileRewrite& fr : rw.files) cuts.insert(cuts.end(), fr.cuts.begin(), fr.cuts.end());
  return ci_findings(a, r, plan, cuts, before);
}

// The --output-format report (not text, not json) on stdout.
void print_ci_report(const std::string& format, const Analysis& a, const CycleReport& r, const CutPlan& plan,
                     const RewriteResult& rw, const BothModes& before) {
  if (format == "sarif") {
    CycleReport attached = r;  // failing counts per cycle, without changing the JSON report's
    attach_failures(attached, before.normal, before.bare);
    SarifInputs in{&before.normal, &before.bare, nullptr, std::filesystem::current_path(), &plan, {}};
    for (const FileRewrite& fr : rw.files) in.cuts.insert(in.cuts.end(), fr.cuts.begin(), fr.cuts.end());
    std::sort(in.cuts.begin(), in.cuts.end());
    std::cout << sarif_log(a, attached, in).dump(2) << "\n";
    return;
  }
  std::vector<CiFinding> findings = rewrite_findings(a, r, plan, rw, before);
  if (format == "github") std::cout << github_workflow_commands(findings);
  if (format == "gitlab") std::cout << gitlab_code_quality(findings).dump(2) << "\n";
}

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
  if (!parse_target_version(f.target_version, &ro.target_minor)) return kExitError;
  simulate_at_least(ro.target_minor);
  if (f.split_by.empty() != f.out_dir.empty() || (!f.split_by.empty() && (f.apply || f.check || f.explain))) {
    std::cerr << "cyclefix: --split-by and --out-dir go together, and without --apply, --check or --explain\n";
    return kExitError;
  }
  const bool json_format = f.output_format == "json", text_format = f.output_format == "text";
  if (!text_format && !json_format && o.json_out == "-") {
    std::cerr << "cyclefix: --output-format " << f.output_format
              << " and --json - both write to stdout; send the JSON to a file (--json FILE)\n";
    return kExitError;
  }
  if (!text_format && (!f.split_by.empty() || (f.explain && !json_format))) {
    std::cerr << "cyclefix: --split-by writes patches and --explain prints the plan: --output-format "
              << (f.explain ? "text or json" : "text") << " only\n";
    return kExitError;
  }
  // What stdout holds instead of the diff, the plan and the `wrote` lines.
  const bool report_on_stdout = o.json_out == "-" || !text_format;
  const bool want_json = !o.json_out.empty() || json_format;
  // --output-format json prints the report, and --json FILE still writes it.
  auto write_json_report = [&](const nlohmann::json& j) {
    if (!write_json(o.json_out, j)) return false;
    return !json_format || o.json_out == "-" || write_json("-", j);
  };
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
  Analysis& a = analyse_and_report(o, progress);
  CycleReport r = build_cycle_report(a, o.max_loops);
  progress.phase("simulate");
  const BothModes before_sim = simulate_both(a);  // for the plan's guard and the summary
  progress.phase("plan");
  PlanOptions guarded = po;
  guarded.before = &before_sim;
  guarded.target_minor = ro.target_minor;
  guarded.release_uses = [&a](const std::vector<char>& keep) { release_rewrite_facts_except(a, keep); };
  if (!check_prefer_lazy(guarded)) return kExitError;
  CutPlan plan = plan_cuts(a, r, guarded);
  progress.clear();
  // The JSON report is only built when asked for: on large trees it costs as much as the analysis.
  nlohmann::json j = want_json ? analysis_json(a, r) : nlohmann::json::object();
  if (want_json) j.update(plan_json(a, r, plan));
  if (f.explain) {
    if (!report_on_stdout) print_plan(std::cout, a, r, plan);
    if (!write_json_report(j)) return kExitError;
    return plan.remaining_cycles ? kExitFound : kExitOk;
  }
  progress.phase("rewrite");
  RewriteResult rw = rewrite(a, r, plan, ro);
  progress.clear();
  for (const auto& p : rw.problems)
    std::cerr << p.file << (p.line ? ":" + std::to_string(p.line) : "") << ": " << p.message << "\n";

  std::size_t functions = 0, local_imports = 0, tc = 0, hoisted = 0;
  nlohmann::json files = nlohmann::json::array();
  const bool print_diff = (f.diff || (!f.apply && !f.check)) && f.split_by.empty() && !report_on_stdout;
  std::size_t next_created = 0;
  auto print_created = [&](const CreatedFile& c) {
    if (print_diff) std::cout << new_file_diff(c.text, c.display);
  };
  LineCounts lines;  // over every file, new modules included
  for (const CreatedFile& c : rw.created) {
    const LineCounts n = changed_lines("", c.text);
    lines.added += n.added;
    files.push_back({{"file", c.display}, {"created", true}, {"module", c.module}, {"cuts", 0},
                     {"lines_added", n.added}, {"lines_removed", 0}});
  }
  for (const FileRewrite& fr : rw.files) {
    const std::string& display = a.files[fr.file].source.display;
    LineCounts n;
    const std::string diff = print_diff ? unified_diff(fr.before, fr.after, display, 3, &n) : std::string();
    if (!print_diff) n = changed_lines(fr.before, fr.after);
    lines.added += n.added;
    lines.removed += n.removed;
    functions += fr.functions;
    local_imports += fr.local_imports;
    tc += fr.type_checking_entries;
    hoisted += fr.hoisted_imports;
    files.push_back({{"file", display}, {"cuts", fr.cuts.size()}, {"local_imports", fr.local_imports},
                     {"functions", fr.functions}, {"type_checking", fr.type_checking_entries},
                     {"quoted_annotations", fr.quoted_annotations}, {"lazy_hoists", fr.lazy_hoists},
                     {"hoisted_imports", fr.hoisted_imports}, {"lines_added", n.added},
                     {"lines_removed", n.removed}});
    // A new module's diff goes where its path sorts, as git orders a diff.
    for (; next_created < rw.created.size() && rw.created[next_created].display < display; ++next_created)
      print_created(rw.created[next_created]);
    std::cout << diff;
  }
  for (; next_created < rw.created.size(); ++next_created) print_created(rw.created[next_created]);
  progress.phase("re-analyse");
  const auto& [normal_before, bare_before] = before_sim;
  // Below, only --check's findings, the CI formats and split patches read the
  // statements and the graph as they were.
  const bool keep_for_reports = f.check || !f.split_by.empty() || (!text_format && !json_format);
  Analysis after_a = analysis_after(a, rw, o.jobs, keep_for_reports);
  CycleReport after_r = build_cycle_report(after_a, o.max_loops);
  release_rewrite_facts(after_a);  // nothing rewrites it
  // The cycle report was the last reader of the new graph and its reachability:
  // the simulation below reads neither (on the 50,000-file benchmark tree they
  // held about 120 MB of the main command's peak, which is in that simulation).
  after_a.graph = ImportGraph{};
  after_a.reach = Reachability{};
  progress.phase("simulate");
  auto [normal_after, bare_after] = simulate_both(after_a);
  const std::pair<std::size_t, std::size_t> before{normal_before.failing(), bare_before.failing()};
  const std::pair<std::size_t, std::size_t> after{normal_after.failing(), bare_after.failing()};
  std::vector<std::string> regressions = newly_failing(a, normal_before, after_a, normal_after);
  for (auto& r2 : newly_failing(a, bare_before, after_a, bare_after)) regressions.push_back(std::move(r2));
  progress.clear();
  for (const auto& glob : plan.unmatched_select) std::cerr << "cyclefix: --select '" << glob << "' matches no module\n";
  // --check says what it would change: one line per cut, naming the loop it breaks.
  if (f.check && !rw.files.empty())
    for (const CiFinding& c : rewrite_findings(a, r, plan, rw, before_sim))
      if (!c.failure) std::cerr << c.file << ":" << c.line << ": " << c.summary << "\n";
  std::cerr << "cyclefix: " << r.components.size() << " import cycle(s)"
            << (plan.skipped_by_select ? " (" + std::to_string(plan.skipped_by_select) + " skipped by --select)" : "")
            << "; " << rw.cuts_applied << " of "
            << plan.cuts.size() << " cut(s) made in " << rw.files.size() << " file(s)"
            << (rw.created.empty() ? "" : " and " + std::to_string(rw.created.size()) + " new module(s)")
            << (rw.files.empty() && rw.created.empty()
                    ? ""
                    : " (+" + std::to_string(lines.added) + " -" + std::to_string(lines.removed) + " lines)")
            << ": "
            << local_imports
            << " local import(s) in " << functions << " function(s), " << tc << " TYPE_CHECKING entr"
            << (tc == 1 ? "y" : "ies")
            << (hoisted ? "; " + std::to_string(hoisted) + " local import(s) made module-level lazy" : "")
            << "; failing entry points (predicted) normal " << before.first << " -> "
            << after.first << ", bare " << before.second << " -> " << after.second << "; "
            << after_r.components.size() << " import cycle(s) left\n";
  for (const auto& r2 : regressions)
    std::cerr << "cyclefix: warning: predicted to import before the rewrite and to fail after it: " << r2 << "\n";
  j["rewrite"] = {{"files", files},
                  {"cuts_applied", rw.cuts_applied},
                  {"lines_added", lines.added},
                  {"lines_removed", lines.removed},
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
    for (const auto& w : written) (report_on_stdout ? std::cerr : std::cout) << "wrote " << w << "\n";
    j["rewrite"]["patches"] = split_json(f.out_dir, a, rw, split);
    if (!ok) {
      std::cerr << "cyclefix: " << err << "\n";
      rc = kExitError;
    }
  }
  if (f.apply && !rw.files.empty()) {
    ApplyOptions apply_options;
    apply_options.roots = allowed_roots(o.paths);
    // New modules first; a file that would import one that could not be
    // created (or that loses definitions to it) is not written.
    std::vector<FileWrite> created;
    for (const CreatedFile& c : rw.created) created.push_back({c.path, c.display, "", c.text, true});
    ApplyOutcome out = apply_writes(created, apply_options);
    std::set<int> missing;  // cuts whose new module is not there
    for (const CreatedFile& c : rw.created)
      if (std::find(out.written.begin(), out.written.end(), c.display) == out.written.end())
        missing.insert(c.cuts.begin(), c.cuts.end());
    std::vector<FileWrite> writes;
    for (const FileRewrite& fr : rw.files) {
      const std::string& display = a.files[fr.file].source.display;
      auto needs_missing = [&](const std::vector<int>& cuts) {
        return std::any_of(cuts.begin(), cuts.end(), [&](int c) { return missing.count(c) > 0; });
      };
      if (needs_missing(fr.cuts) || needs_missing(fr.extracted_for)) {
        out.errors.push_back(display + ": not written: a new module it needs was not created");
        continue;
      }
      writes.push_back({a.files[fr.file].source.path, display, fr.before, fr.after});
    }
    ApplyOutcome rest = apply_writes(writes, apply_options);
    out.written.insert(out.written.end(), rest.written.begin(), rest.written.end());
    out.errors.insert(out.errors.end(), rest.errors.begin(), rest.errors.end());
    // With --json - the report owns stdout.
    for (const auto& w : out.written) (report_on_stdout ? std::cerr : std::cout) << "wrote " << w << "\n";
    for (const auto& e : out.errors) std::cerr << "cyclefix: " << e << "\n";
    j["rewrite"]["written"] = out.written;
    j["rewrite"]["write_errors"] = out.errors;
    if (!out.errors.empty()) rc = kExitError;
  }
  if (!text_format && !json_format) print_ci_report(f.output_format, a, r, plan, rw, before_sim);
  if (!write_json_report(j)) return kExitError;
  if (f.check && !rw.files.empty() && rc == kExitOk) return kExitFound;
  return rc;
}

class FixCommand final : public Command {
 public:
  explicit FixCommand(CLI::App& app) : main_app(app) {
    add_common(&app, fix_opts);
    app.add_flag("--apply", fix.apply, "Write the changes (each file atomically) instead of printing the diff");
    app.add_flag("--check", fix.check, "Print no diff (the summary still goes to stderr); exit 1 when a change would be made (for CI)");
    app.add_flag("--diff", fix.diff, "With --check or --apply, print the diff too");
    app.add_flag("--explain", fix.explain, "Print the plan (what would be deferred, and why) instead of the diff");
    app.add_flag("--note,!--no-note", fix_rewrite.note, "Comment naming the loop on moved imports (default: on)");
    app.add_flag("--noqa,!--no-noqa", fix_rewrite.noqa, "Append ruff/pylint suppressions (PLC0415) to moved imports");
    app.add_option("--line-length", fix_rewrite.line_length,
                   "Wrap a written `from m import a, b` in parentheses past this many characters (default: "
                   "[tool.ruff] or [tool.black] line-length, else 88; 0: never)");
    app.add_option("--target-version", fix.target_version,
                   "Oldest Python the code runs on (default 3.9; from 3.14 annotations are not quoted; from 3.15 a "
                   "cut may be a `lazy` import)");
    app.add_flag("--allow-init-cuts,!--no-allow-init-cuts", fix_plan.allow_init_cuts,
                 "Allow deferring imports in package __init__.py files (public API by default)");
    app.add_flag("--prefer-lazy,!--no-prefer-lazy", fix_plan.prefer_lazy,
                 "With --target-version 3.15+: local imports kept local to avoid a cycle become module-level "
                 "`lazy` imports where safe");
    app.add_flag("--allow-late-imports,!--no-allow-late-imports", fix_plan.allow_late_imports,
                 "With --only-failing: an import may move below the definition its module reads back (E402)");
    app.add_flag("--extract,!--no-extract", fix_plan.extract,
                 "A loop nothing else breaks may be broken by moving definitions to a new module (default: on)");
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
    app.add_option("--output-format", fix.output_format,
                   "What stdout holds: text (the diff, default), json (the JSON report), sarif (SARIF 2.1.0), "
                   "github (workflow commands: annotations on the pull request) or gitlab (Code Quality JSON)")
        ->check(CLI::IsMember({"text", "json", "sarif", "github", "gitlab"}));
  }
  bool chosen() const override { return true; }
  bool configure() override { return apply_config(main_app, fix_opts, &fix_plan, &fix_rewrite, &fix.target_version); }
  int run(const std::vector<std::string>& args) override {
    if (fix.apply || !fix.split_by.empty()) return run_fix(fix_opts, fix_plan, fix_rewrite, fix);  // they write the tree
    return run_recorded(fix_opts, args, {},
                        [&](const CommonOptions& o) { return run_fix(o, fix_plan, fix_rewrite, fix); });
  }

 private:
  CLI::App& main_app;
  CommonOptions fix_opts;
  PlanOptions fix_plan;
  RewriteOptions fix_rewrite;
  FixCli fix;
};

}  // namespace

std::unique_ptr<Command> add_fix_command(CLI::App& app) { return std::make_unique<FixCommand>(app); }

}  // namespace cyclefix::cli
