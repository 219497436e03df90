// The HTML report (`cyclefix report --html FILE`): one self-contained page
// (inline CSS and JS, no network) with a summary, and per cyclic component its
// graph drawn by Graphviz, its loops, cuts, pinned statements and diff.
// Three stages with plain data between them: component_dot() writes the DOT,
// render_svgs() runs `dot -Tsvg` once for all of them, html_page() lays out
// the page. Nothing here analyses or plans; it only shows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "rewrite.hpp"

namespace cyclefix {

// What the simulator predicts before and after the rewrite (computed by the caller).
struct ReportOutcome {
  FailingCounts failing_before, failing_after;
  std::size_t cycles_after = 0;
};

struct HtmlReportOptions {
  // Components with more modules are drawn reduced: only the modules of their
  // shortest loops (loops through cut edges first), up to this many.
  std::size_t max_drawn_modules = 60;
  std::string dot = "dot";  // the Graphviz program (searched on PATH without a '/')
};

// One component's graph as DOT. Edge classes (in the SVG, as CSS classes):
// `cut` (every statement making it is deferred by the plan; `cut partial` when
// only some are), `pinned` (some statement cannot be deferred).
struct ComponentDrawing {
  std::string dot;
  std::size_t modules_drawn = 0;
  std::size_t edges_drawn = 0;
  std::size_t cut_edges = 0;     // drawn edges with class `cut`
  std::size_t pinned_edges = 0;  // drawn edges with class `pinned`
  bool reduced = false;          // the component had more than max_drawn_modules
  std::size_t loops_drawn = 0;   // reduced: the loops whose modules are drawn
};

ComponentDrawing component_dot(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                               std::size_t component, const HtmlReportOptions& options);

// The absolute path of `program` (as given when it holds a '/'), searched on
// $PATH; nullopt when it is not there.
std::optional<std::string> find_program(const std::string& program);

// The message for a missing Graphviz: names the Debian package.
std::string graphviz_missing_message(const std::string& program);

// Runs `dot -Tsvg` once over all graphs; one <svg> element per graph, in order.
// False, with *err set, when dot is missing, fails, or returns too few graphs.
bool render_svgs(const std::vector<std::string>& dots, const std::string& dot_program,
                 std::vector<std::string>* svgs, std::string* err);

// The page. `svgs` is parallel to `drawings` and to cycles.components.
std::string html_page(const Analysis& a, const CycleReport& cycles, const CutPlan& plan, const RewriteResult& rw,
                      const ReportOutcome& outcome, const std::vector<ComponentDrawing>& drawings,
                      const std::vector<std::string>& svgs);

// All three stages; false (with *err) when Graphviz cannot be run.
bool render_html_report(const Analysis& a, const CycleReport& cycles, const CutPlan& plan, const RewriteResult& rw,
                        const ReportOutcome& outcome, const HtmlReportOptions& options, std::string* html,
                        std::string* err);

// Text to HTML: & < > " ' escaped.
std::string html_escape(std::string_view s);
// A unified diff as HTML lines: <span class="add|del|hunk|meta|ctx"> per line,
// Python keywords, strings and comments inside code lines as kw/str/cm spans.
std::string highlight_diff(std::string_view diff);

}  // namespace cyclefix
