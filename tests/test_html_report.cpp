// The HTML report: escaping, diff highlighting, the DOT per component (cut,
// pinned and package marks; the reduced drawing of large components), the page
// on in-memory packages, and the command with and without Graphviz.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cut_plan.hpp"
#include "html_report.hpp"
#include "in_memory.hpp"
#include "rewrite.hpp"
#include "shell.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;
namespace fs = std::filesystem;

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

struct Reported {
  Analysis a;
  CycleReport cycles;
  CutPlan plan;
};

Reported report_of(const Files& files) {
  Reported r{analysis_of(files), {}, {}};
  r.cycles = build_cycle_report(r.a, 100);
  r.plan = plan_cuts(r.a, r.cycles, {});
  return r;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// p/__init__.py's import is pinned (public API); the loop is cut elsewhere.
const Files kPinnedInit = {
    {"p/__init__.py", "from p.a import A\n"},
    {"p/a.py", "from p.b import helper\nclass A:\n    pass\ndef f():\n    return helper()\n"},
    {"p/b.py", "from p import A\ndef helper():\n    return A()\n"},
};

// Runs `cmd` in the source directory, stdout and stderr captured.
testing_support::ShellRun run_in_source(const std::string& cmd) {
  return testing_support::run_shell("cd '" + std::string(CYCLEFIX_SOURCE_DIR) + "' && " + cmd + " 2>&1");
}

}  // namespace

TEST(HtmlReport, EscapesText) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST(HtmlReport, DiffLinesAndPythonKeywordsGetClasses) {
  // The hunk's counts (3 old, 2 new) say which lines belong to it: a removed line
  // starting with "--" is not taken for a file header.
  std::string h = highlight_diff("--- a/p/a.py\n+++ b/p/a.py\n@@ -1,3 +1,2 @@\n-from p.b import x  # <old>\n"
                                 "--- looks like a header\n def f():\n+x = \"<b>\"\n");
  EXPECT_NE(h.find("<span class=\"meta\">--- a/p/a.py\n</span>"), std::string::npos) << h;
  EXPECT_NE(h.find("<span class=\"meta\">+++ b/p/a.py\n</span>"), std::string::npos) << h;
  EXPECT_NE(h.find("<span class=\"hunk\">@@ -1,3 +1,2 @@\n</span>"), std::string::npos) << h;
  EXPECT_NE(h.find("<span class=\"del\">-<span class=\"kw\">from</span> p.b <span class=\"kw\">import</span> x  "
                   "<span class=\"cm\"># &lt;old&gt;</span>\n</span>"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("<span class=\"del\">--- looks like a header\n</span>"), std::string::npos) << h;
  EXPECT_NE(h.find("<span class=\"ctx\"> <span class=\"kw\">def</span> f():\n</span>"), std::string::npos) << h;
  EXPECT_NE(h.find("<span class=\"add\">+x = <span class=\"str\">&quot;&lt;b&gt;&quot;</span>\n</span>"),
            std::string::npos)
      << h;
}

TEST(HtmlReport, DotMarksCutPinnedEdgesAndPackages) {
  Reported r = report_of(kPinnedInit);
  ASSERT_EQ(r.cycles.components.size(), 1u);
  ASSERT_FALSE(r.plan.cuts.empty());
  ComponentDrawing d = component_dot(r.a, r.cycles, r.plan, 0, {});
  EXPECT_FALSE(d.reduced);
  EXPECT_EQ(d.modules_drawn, 3u);
  EXPECT_GE(d.cut_edges, 1u);
  EXPECT_EQ(count(d.dot, "class=\"cut\""), d.cut_edges) << d.dot;
  EXPECT_EQ(d.pinned_edges, 1u) << d.dot;
  // p.__init__ -> p.a is the pinned edge; the package node is a folder.
  EXPECT_NE(d.dot.find("\"p\" -> \"p.a\" [id=\"c1-e"), std::string::npos) << d.dot;
  EXPECT_NE(d.dot.find("class=\"pinned\", style=dashed"), std::string::npos) << d.dot;
  EXPECT_NE(d.dot.find("label=\"p.__init__\", tooltip=\"p/__init__.py\", shape=folder"), std::string::npos) << d.dot;
}

TEST(HtmlReport, LargeComponentIsDrawnAsItsShortestLoops) {
  // A ring of six modules and a two-module loop inside it.
  Files files = {{"p/__init__.py", ""}};
  for (int i = 0; i < 6; ++i) {
    std::string src = "import p.m" + std::to_string((i + 1) % 6) + "\n";
    if (i == 1) src += "import p.m0\n";
    src += "def f():\n    return p\n";
    files.push_back({"p/m" + std::to_string(i) + ".py", src});
  }
  Reported r = report_of(files);
  ASSERT_EQ(r.cycles.components.size(), 1u);
  ASSERT_EQ(r.cycles.components[0].modules.size(), 6u);
  HtmlReportOptions o;
  o.max_drawn_modules = 3;
  ComponentDrawing d = component_dot(r.a, r.cycles, r.plan, 0, o);
  EXPECT_TRUE(d.reduced);
  EXPECT_EQ(d.modules_drawn, 2u) << d.dot;
  EXPECT_EQ(d.loops_drawn, 1u);
  EXPECT_EQ(count(d.dot, " -> "), 2u) << d.dot;
  o.max_drawn_modules = 60;
  EXPECT_EQ(component_dot(r.a, r.cycles, r.plan, 0, o).modules_drawn, 6u);
}

TEST(HtmlReport, PageHasOneSectionPerCycleAndEscapesWhatItShows) {
  Reported r = report_of(kPinnedInit);
  std::vector<std::string> sources;
  for (const auto& f : kPinnedInit) sources.push_back(f.second);
  RewriteResult rw = rewrite(r.a, r.cycles, r.plan, {}, &sources);
  ASSERT_FALSE(rw.files.empty());
  std::vector<ComponentDrawing> drawings = {component_dot(r.a, r.cycles, r.plan, 0, {})};
  std::string page = html_page(r.a, r.cycles, r.plan, rw, {{1, 1}, {0, 0}, 0}, drawings, {"<svg></svg>"});
  EXPECT_EQ(count(page, "<section class=\"component\""), 1u);
  EXPECT_NE(page.find("data-cut-edges=\"" + std::to_string(drawings[0].cut_edges) + "\""), std::string::npos);
  EXPECT_NE(page.find("<pre id=\"selfcheck\">"), std::string::npos);
  EXPECT_NE(page.find("<pre class=\"diff\">"), std::string::npos);
  EXPECT_NE(page.find("p/__init__.py:1"), std::string::npos);  // the pinned statement, with file:line
  EXPECT_NE(page.find("public API"), std::string::npos);        // and its reason
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
}

TEST(HtmlReportCli, WithoutGraphvizSaysSoAndWritesNothing) {
  fs::path out = fs::temp_directory_path() / "cyclefix-test-no-dot.html";
  fs::remove(out);
  auto r = run_in_source("PATH=/nonexistent '" + std::string(CYCLEFIX_BINARY) +
                         "' report golden/seed_shape/input --html '" + out.string() + "'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("Graphviz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Debian package graphviz"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST(HtmlReportCli, SeedShapeHasOneDrawingWithItsCutsHighlighted) {
  if (!find_program("dot")) GTEST_SKIP() << "Graphviz's dot not installed (Debian package graphviz)";
  fs::path out = fs::temp_directory_path() / "cyclefix-test-seed-report.html";
  auto r = run_in_source("'" + std::string(CYCLEFIX_BINARY) +
                         "' report golden/seed_shape/input -q --no-cache --html '" + out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream f(out);
  std::stringstream s;
  s << f.rdbuf();
  std::string page = s.str();
  fs::remove(out);
  EXPECT_EQ(count(page, "<svg"), 1u);
  EXPECT_GE(count(page, "class=\"edge cut\""), 1u);
  EXPECT_NE(page.find("class=\"node module package\""), std::string::npos);
  EXPECT_NE(page.find("exir.capture.__init__"), std::string::npos);
  EXPECT_NE(page.find("golden/seed_shape/input/exir/capture/_capture.py:12"), std::string::npos);
}
