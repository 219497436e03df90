// [tool.cyclefix] in pyproject.toml: parsing and checking (in memory), finding
// the file by walking up (temporary directories), the command line overriding
// it (through the binary); and --select restricting the plan (in memory).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config.hpp"
#include "cut_plan.hpp"
#include "in_memory.hpp"
#include "shell.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;
namespace fs = std::filesystem;

namespace {

struct Parsed {
  bool ok = false, found = false;
  ProjectConfig config;
  std::string err;
};

Parsed parse(const std::string& text) {
  Parsed p;
  p.ok = parse_config(text, "pyproject.toml", "/proj", &p.config, &p.found, &p.err);
  return p;
}

// A fresh directory under the test temp dir.
fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / ("cyclefix_config_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

struct BinaryRun {
  int status = -1;
  std::string out;
};

// Runs the binary in `cwd`; stdout captured, stderr too when `with_stderr`.
BinaryRun run_in(const fs::path& cwd, const std::string& args, bool with_stderr = false) {
  std::string cmd = "cd '" + cwd.string() + "' && '" + CYCLEFIX_BINARY + "' " + args +
                    (with_stderr ? " 2>&1" : " 2>/dev/null");
  auto run = cyclefix::testing_support::run_shell(cmd);
  return {run.status, std::move(run.out)};
}

}  // namespace

TEST(Config, ValidTableWithEveryKey) {
  auto p = parse(R"([project]
name = "x"

[tool.cyclefix]
roots = ["src", "lib/python"]
exclude = ["*/migrations/*", "tests"]
target-version = "3.11"
only-failing = true
allow-init-cuts = true
time-limit = 2.5
note = false
noqa = true
)");
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_TRUE(p.found);
  ASSERT_TRUE(p.config.roots);
  EXPECT_EQ(*p.config.roots, (std::vector<fs::path>{"/proj/src", "/proj/lib/python"}));
  EXPECT_EQ(*p.config.exclude, (std::vector<std::string>{"*/migrations/*", "tests"}));
  EXPECT_EQ(*p.config.target_version, "3.11");
  EXPECT_TRUE(*p.config.only_failing);
  EXPECT_TRUE(*p.config.allow_init_cuts);
  EXPECT_DOUBLE_EQ(*p.config.time_limit_s, 2.5);
  EXPECT_FALSE(*p.config.note);
  EXPECT_TRUE(*p.config.noqa);
}

TEST(Config, AbsentKeysStayUnsetAndIntegerTimeLimitIsANumber) {
  auto p = parse("[tool.cyclefix]\ntime-limit = 0\n");
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_TRUE(p.found);
  EXPECT_DOUBLE_EQ(*p.config.time_limit_s, 0);
  EXPECT_FALSE(p.config.roots || p.config.exclude || p.config.target_version || p.config.only_failing ||
               p.config.allow_init_cuts || p.config.note || p.config.noqa);
}

TEST(Config, NoTableIsNotFound) {
  auto p = parse("[tool.ruff]\nline-length = 100\n");
  EXPECT_TRUE(p.ok) << p.err;
  EXPECT_FALSE(p.found);
}

TEST(Config, UnknownKeyNamesKeyFileAndLine) {
  auto p = parse("[project]\nname = \"x\"\n\n[tool.cyclefix]\nroots = [\"src\"]\nexlude = [\"tests\"]\n");
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.err.find("pyproject.toml:6: [tool.cyclefix] unknown key 'exlude'"), std::string::npos) << p.err;
}

TEST(Config, WrongTypesNameTheKeyAndLine) {
  auto p = parse(R"([tool.cyclefix]
only-failing = "yes"
roots = "src"
exclude = ["a", 3]
time-limit = "10"
target-version = 3.9
note = 1
)");
  EXPECT_FALSE(p.ok);
  for (const char* expected : {
           "pyproject.toml:2: [tool.cyclefix] 'only-failing' must be true or false, not a string",
           "pyproject.toml:3: [tool.cyclefix] 'roots' must be a list of strings, not a string",
           "pyproject.toml:4: [tool.cyclefix] 'exclude' must be a list of strings; an element is an integer",
           "pyproject.toml:5: [tool.cyclefix] 'time-limit' must be a number of seconds, not a string",
           "pyproject.toml:6: [tool.cyclefix] 'target-version' must be a string",
           "pyproject.toml:7: [tool.cyclefix] 'note' must be true or false, not an integer",
       })
    EXPECT_NE(p.err.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << p.err;
}

TEST(Config, BadValuesAreErrors) {
  auto v = parse("[tool.cyclefix]\ntarget-version = \"2.7\"\n");
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.err.find("pyproject.toml:2: [tool.cyclefix] 'target-version' must look like \"3.9\""),
            std::string::npos)
      << v.err;
  auto t = parse("[tool.cyclefix]\ntime-limit = -1\n");
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.err.find("'time-limit'"), std::string::npos) << t.err;
  auto table = parse("[tool]\ncyclefix = 1\n");
  EXPECT_FALSE(table.ok);
  EXPECT_NE(table.err.find("pyproject.toml:2: [tool.cyclefix] must be a table"), std::string::npos) << table.err;
}

TEST(Config, InvalidTomlNamesTheLine) {
  auto p = parse("[tool.cyclefix]\nnote = true\nnoqa = \n");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.err.rfind("pyproject.toml:3: invalid TOML", 0), 0u) << p.err;
}

TEST(Config, WalksUpToTheNearestTableAndStopsAtGit) {
  fs::path top = fresh_dir("walk");
  // top/repo is a repository; its pyproject has the table; repo/pkg has a pyproject without one.
  write(top / "pyproject.toml", "[tool.cyclefix]\nnote = false\n");
  fs::create_directories(top / "repo/.git");
  write(top / "repo/pyproject.toml", "[tool.cyclefix]\nroots = [\"src\"]\n");
  write(top / "repo/pkg/pyproject.toml", "[project]\nname = \"pkg\"\n");
  write(top / "repo/pkg/sub/mod.py", "");

  ProjectConfig c;
  std::string err;
  ASSERT_TRUE(find_config(top / "repo/pkg/sub", &c, &err)) << err;
  EXPECT_EQ(c.file, top / "repo/pyproject.toml");
  ASSERT_TRUE(c.roots);
  EXPECT_EQ(*c.roots, std::vector<fs::path>{top / "repo/src"});
  EXPECT_FALSE(c.note);  // the file above the repository is not read

  // A file as the start, and a nonexistent path below the tree, walk from their directory.
  ASSERT_TRUE(find_config(top / "repo/pkg/sub/mod.py", &c, &err)) << err;
  EXPECT_EQ(c.file, top / "repo/pyproject.toml");
  ASSERT_TRUE(find_config(top / "repo/pkg/missing.py", &c, &err)) << err;
  EXPECT_EQ(c.file, top / "repo/pyproject.toml");

  // Without the repository's table, the walk stops at .git: nothing found.
  write(top / "repo/pyproject.toml", "[project]\nname = \"repo\"\n");
  ASSERT_TRUE(find_config(top / "repo/pkg/sub", &c, &err)) << err;
  EXPECT_TRUE(c.file.empty());

  // An invalid pyproject.toml on the way is an error naming it.
  write(top / "repo/pkg/pyproject.toml", "[project\n");
  EXPECT_FALSE(find_config(top / "repo/pkg/sub", &c, &err));
  EXPECT_NE(err.find("pyproject.toml:1: invalid TOML"), std::string::npos) << err;
  fs::remove_all(top);
}

TEST(Config, LoadRequiresTheTable) {
  fs::path dir = fresh_dir("load");
  write(dir / "other.toml", "[tool.black]\nline-length = 100\n");
  ProjectConfig c;
  std::string err;
  EXPECT_FALSE(load_config(dir / "other.toml", &c, &err));
  EXPECT_NE(err.find("no [tool.cyclefix] table"), std::string::npos) << err;
  EXPECT_FALSE(load_config(dir / "absent.toml", &c, &err));
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
  fs::remove_all(dir);
}

// Through the binary: the config is found from the PATH argument, `roots` is
// relative to the config's directory (not the cwd), and flags win over it.
TEST(ConfigCli, FoundFromPathAndOverriddenByFlags) {
  fs::path top = fresh_dir("cli");
  fs::create_directories(top / ".git");
  // With the tree root as the source root, app.x and app.y import each other;
  // with app/ as the root (what detection picks), `from app import y` is third-party.
  write(top / "app/x.py", "from app import y\ndef fx():\n    return y.fy()\n");
  write(top / "app/y.py", "from app import x\ndef fy():\n    return x.fx()\n");
  write(top / "pyproject.toml", "[tool.cyclefix]\nroots = [\".\"]\nonly-failing = true\n");
  fs::path elsewhere = fresh_dir("cli_cwd");

  BinaryRun r = run_in(elsewhere, "plan '" + (top / "app").string() + "' --json -");
  EXPECT_EQ(r.status, 1) << r.out;  // only-failing: the harmless cycle gets no cut and remains
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["sccs"].size(), 1u);
  EXPECT_EQ(j["sccs"][0]["modules"], (nlohmann::json{"app.x", "app.y"}));
  EXPECT_EQ(j["plan"]["mode"], "only_failing");
  EXPECT_TRUE(j["cuts"].empty());

  // --no-only-failing beats `only-failing = true`.
  r = run_in(elsewhere, "plan '" + (top / "app").string() + "' --no-only-failing --json -");
  EXPECT_EQ(r.status, 0) << r.out;
  j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["plan"]["mode"], "acyclic");
  EXPECT_EQ(j["cuts"].size(), 1u);

  // --root beats `roots`: with app/ as the root there is no cycle.
  r = run_in(elsewhere, "cycles '" + (top / "app").string() + "' --root '" + (top / "app").string() + "' --json -");
  EXPECT_EQ(r.status, 0) << r.out;

  // --config names another file; the walk is not used.
  write(top / "alt/cyclefix.toml", "[tool.cyclefix]\nroots = [\"../app\"]\n");
  r = run_in(elsewhere, "cycles '" + (top / "app").string() + "' --config '" + (top / "alt/cyclefix.toml").string() +
                            "' --json -");
  EXPECT_EQ(r.status, 0) << r.out;
  fs::remove_all(top);
  fs::remove_all(elsewhere);
}

TEST(ConfigCli, UnknownKeyExitsTwoWithFileAndLine) {
  fs::path top = fresh_dir("cli_bad");
  fs::create_directories(top / ".git");
  write(top / "pkg/a.py", "");
  write(top / "pyproject.toml", "[project]\nname = \"x\"\n\n[tool.cyclefix]\nexlude = [\"tests\"]\n");
  BinaryRun r = run_in(top, "cycles pkg", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("pyproject.toml:5: [tool.cyclefix] unknown key 'exlude'"), std::string::npos) << r.out;
  r = run_in(top, "pkg --check", true);  // the main command reads it too
  EXPECT_EQ(r.status, 2) << r.out;
  fs::remove_all(top);
}

TEST(Config, LineLengthFromTheTableElseTheFormatters) {
  auto p = parse("[tool.black]\nline-length = 100\n[tool.ruff]\nline-length = 120\n[tool.cyclefix]\nline-length = 72\n");
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_EQ(p.config.line_length, std::optional<std::size_t>(72));
  p = parse("[tool.black]\nline-length = 100\n[tool.ruff]\nline-length = 120\n[tool.cyclefix]\nnote = true\n");
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_EQ(p.config.line_length, std::optional<std::size_t>(120));  // ruff's, where both are set
  p = parse("[tool.black]\nline-length = 100\n");
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_FALSE(p.found);
  EXPECT_EQ(p.config.line_length, std::optional<std::size_t>(100));
  p = parse("[tool.cyclefix]\nline-length = -1\n");
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.err.find("pyproject.toml:2: [tool.cyclefix] 'line-length' must be 0"), std::string::npos) << p.err;
  p = parse("[tool.cyclefix]\nline-length = \"88\"\n");
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.err.find("'line-length' must be a number of characters, not a string"), std::string::npos) << p.err;

  // The walk keeps the nearest formatter's length when the table is further up,
  // or absent.
  fs::path top = fresh_dir("line_length");
  fs::create_directories(top / ".git");
  write(top / "pyproject.toml", "[tool.cyclefix]\nnote = false\n");
  write(top / "pkg/pyproject.toml", "[tool.ruff]\nline-length = 99\n");
  ProjectConfig c;
  std::string err;
  ASSERT_TRUE(find_config(top / "pkg", &c, &err)) << err;
  EXPECT_EQ(c.file, top / "pyproject.toml");
  EXPECT_EQ(c.line_length, std::optional<std::size_t>(99));
  write(top / "pyproject.toml", "[project]\nname = \"x\"\n");
  ASSERT_TRUE(find_config(top / "pkg", &c, &err)) << err;
  EXPECT_TRUE(c.file.empty());
  EXPECT_EQ(c.line_length, std::optional<std::size_t>(99));
  fs::remove_all(top);
}

// Through the binary: the file's line-length wraps what the main command
// writes, --line-length beats it; and `report`, which has no --noqa or
// --line-length flag, takes the file's values instead of failing on them.
TEST(ConfigCli, LineLengthWrapsAndReportAcceptsRewriteKeys) {
  fs::path top = fresh_dir("cli_wrap");
  fs::create_directories(top / ".git");
  write(top / "pkg/__init__.py", "");
  write(top / "pkg/a.py", "from pkg.b import alpha_function, beta_function, gamma\nVALUE = 1\n"
                          "def f():\n    return alpha_function(), beta_function()\ndef g():\n    return gamma\n");
  write(top / "pkg/b.py", "from pkg.a import VALUE\ndef alpha_function():\n    return VALUE\n"
                          "def beta_function():\n    return VALUE\ngamma = VALUE\n");
  write(top / "pyproject.toml", "[tool.cyclefix]\nline-length = 40\nnoqa = true\nnote = false\n");
  BinaryRun r = run_in(top, "--no-cache pkg");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("+    from pkg.b import (alpha_function,\n+                       beta_function)"),
            std::string::npos)
      << r.out;
  r = run_in(top, "--no-cache --line-length 0 pkg");
  EXPECT_NE(r.out.find("+    from pkg.b import alpha_function, beta_function"), std::string::npos) << r.out;
  r = run_in(top, "report --no-cache --html report.html pkg", true);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(top / "report.html"));
  fs::remove_all(top);
}

// --select: components without a matching module get no cuts and are not counted.
namespace {

const std::vector<std::pair<std::string, std::string>> kTwoCycles = {
    {"alpha/__init__.py", ""},
    {"alpha/a.py", "from alpha.b import fb\ndef fa():\n    return fb()\n"},
    {"alpha/b.py", "from alpha.a import fa\ndef fb():\n    return fa()\n"},
    {"beta/__init__.py", ""},
    {"beta/a.py", "from beta.b import fb\ndef fa():\n    return fb()\n"},
    {"beta/b.py", "from beta.a import fa\ndef fb():\n    return fa()\n"},
};

struct Planned {
  Analysis a;
  CycleReport cycles;
  CutPlan plan;
};

Planned plan_of(const std::vector<std::pair<std::string, std::string>>& files, PlanOptions o) {
  Planned p{analysis_of(files), {}, {}};
  p.cycles = build_cycle_report(p.a, 100);
  p.plan = plan_cuts(p.a, p.cycles, o);
  return p;
}

std::vector<std::string> cut_files(const Planned& p) {
  std::vector<std::string> out;
  for (int i : p.plan.cuts) out.push_back(p.a.files[p.plan.candidates[i].file].source.display);
  return out;
}

}  // namespace

TEST(CutPlanSelect, OnlyMatchingComponentsArePlanned) {
  auto all = plan_of(kTwoCycles, {});
  ASSERT_EQ(all.cycles.components.size(), 2u);
  EXPECT_EQ(all.plan.cuts.size(), 2u);
  EXPECT_EQ(all.plan.skipped_by_select, 0u);

  PlanOptions o;
  o.select = {"beta.*"};
  auto p = plan_of(kTwoCycles, o);
  ASSERT_EQ(p.cycles.components.size(), 2u);  // the analysis still sees both
  ASSERT_EQ(p.plan.cuts.size(), 1u);
  EXPECT_EQ(cut_files(p)[0].rfind("beta/", 0), 0u) << cut_files(p)[0];
  for (const auto& c : p.plan.candidates)  // no candidate from the skipped component
    EXPECT_EQ(p.a.files[c.file].source.display.rfind("beta/", 0), 0u);
  EXPECT_EQ(p.plan.skipped_by_select, 1u);
  EXPECT_EQ(p.plan.remaining_cycles, 0u);  // alpha's cycle is not counted as remaining
  EXPECT_TRUE(p.plan.unmatched_select.empty());
  auto j = plan_json(p.a, p.cycles, p.plan)["plan"];
  EXPECT_EQ(j["skipped_by_select"], 1);
  std::ostringstream text;
  print_plan(text, p.a, p.cycles, p.plan);
  EXPECT_NE(text.str().find("2 import cycles (1 skipped by --select)"), std::string::npos) << text.str();
}

TEST(CutPlanSelect, ExactNameAndUnmatchedGlob) {
  PlanOptions o;
  o.select = {"alpha.b", "gamma.*"};
  auto p = plan_of(kTwoCycles, o);
  ASSERT_EQ(p.plan.cuts.size(), 1u);
  EXPECT_EQ(cut_files(p)[0].rfind("alpha/", 0), 0u);
  EXPECT_EQ(p.plan.skipped_by_select, 1u);
  EXPECT_EQ(p.plan.unmatched_select, std::vector<std::string>{"gamma.*"});
  std::ostringstream text;
  print_plan(text, p.a, p.cycles, p.plan);
  EXPECT_NE(text.str().find("--select 'gamma.*' matches no module"), std::string::npos) << text.str();
}

// With --only-failing, failures in a skipped component are neither fixed nor
// counted (nor reported as unbreakable).
TEST(CutPlanSelect, OnlyFailingIgnoresSkippedComponents) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"f/__init__.py", ""},
      {"f/f.py", "from f.g import fg\ndef ff():\n    return fg()\nF = 1\n"},
      {"f/g.py", "from f.f import F\nG = F + 1\ndef fg():\n    return G\n"},
      {"h/__init__.py", ""},
      {"h/f.py", "from h.g import fg\ndef ff():\n    return fg()\nF = 1\n"},
      {"h/g.py", "from h.f import F\nG = F + 1\ndef fg():\n    return G\n"},
  };
  PlanOptions o;
  o.only_failing = true;
  auto all = plan_of(files, o);
  EXPECT_EQ(all.plan.cuts.size(), 2u);
  EXPECT_EQ(all.plan.failing_before.normal, 4u);

  o.select = {"h.*"};
  auto p = plan_of(files, o);
  EXPECT_EQ(cut_files(p), std::vector<std::string>{"h/f.py"});
  EXPECT_EQ(p.plan.failing_before.normal, 2u);
  EXPECT_EQ(p.plan.failing_before.bare, 2u);
  EXPECT_EQ(p.plan.failing_after.normal, 0u);
  EXPECT_EQ(p.plan.failing_after.bare, 0u);
  EXPECT_TRUE(p.plan.converged);
  EXPECT_TRUE(p.plan.unbreakable_loops.empty());
  EXPECT_EQ(p.plan.skipped_by_select, 1u);
}

TEST(ConfigCliSelect, PlanSubcommandReportsSkipped) {
  BinaryRun r = run_in(CYCLEFIX_SOURCE_DIR, "plan docs/example --select 'nomatch.*' --json -");
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(r.status, 0);  // the only cycle is skipped: nothing remains among the selected
  EXPECT_EQ(j["plan"]["skipped_by_select"], 1);
  EXPECT_TRUE(j["cuts"].empty());
  EXPECT_EQ(j["plan"]["unmatched_select"], (nlohmann::json{"nomatch.*"}));
}

TEST(Config, RuntimeEvaluatedKeysAreListsOfStrings) {
  auto p = parse("[tool.cyclefix]\nruntime-evaluated-base-classes = [\"pydantic.BaseModel\", \"app.Schema\"]\n"
                 "runtime-evaluated-decorators = [\"attrs.define\"]\n");
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_EQ(*p.config.runtime_evaluated_base_classes, (std::vector<std::string>{"pydantic.BaseModel", "app.Schema"}));
  EXPECT_EQ(*p.config.runtime_evaluated_decorators, (std::vector<std::string>{"attrs.define"}));
  auto bad = parse("[tool.cyclefix]\nruntime-evaluated-decorators = \"attrs.define\"\n");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.err.find("pyproject.toml:2: [tool.cyclefix] 'runtime-evaluated-decorators' must be a list of strings"),
            std::string::npos)
      << bad.err;
}
