// End-to-end runs of the cyclefix binary on fixture trees: exit codes, the
// text report, and the JSON report.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <sstream>
#include <string>
#include "shell.hpp"

namespace fs = std::filesystem;

namespace {

struct CliRun {
  int status = -1;
  std::string out;
};

// Runs the binary with `args` (shell words), stdout captured, stderr discarded.
CliRun run_cyclefix(const std::string& args) {
  std::string cmd = std::string("cd '") + CYCLEFIX_SOURCE_DIR + "' && '" + CYCLEFIX_BINARY + "' " +
                    args + " 2>/dev/null";
  auto run = cyclefix::testing_support::run_shell(cmd);
  return {run.status, std::move(run.out)};
}

nlohmann::json run_json(const std::string& args, int expected_status) {
  CliRun r = run_cyclefix(args + " --json -");
  EXPECT_EQ(r.status, expected_status) << r.out;
  return nlohmann::json::parse(r.out, nullptr, false);
}

}  // namespace

TEST(Cli, SeedShapeLoopNamesTheInitHop) {
  auto j = run_json("cycles golden/seed_shape/input", 1);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["sccs"].size(), 1u);
  // The verifier -> capture/__init__ hop, made by verifier's import of capture._config.
  bool found = false;
  for (const auto& c : j["cycles"]) {
    for (const auto& h : c["hops"]) {
      if (h["from"] == "exir.verification.verifier" && h["to"] == "exir.capture") {
        found = true;
        EXPECT_EQ(h["file"], "golden/seed_shape/input/exir/verification/verifier.py");
        EXPECT_EQ(h["statement"], "from exir.capture._config import EdgeCompileConfig");
        EXPECT_NE(c["display"].get<std::string>().find("exir.capture.__init__"), std::string::npos);
      }
    }
  }
  EXPECT_TRUE(found) << j["cycles"].dump(2);
  // Every loop starts and ends at the same module.
  for (const auto& c : j["cycles"]) EXPECT_EQ(c["loop"].front(), c["loop"].back());
}

TEST(Cli, TextReportListsHopsWithFileAndLine) {
  CliRun r = run_cyclefix("cycles docs/example");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("shop.orders -> shop.pricing -> shop.orders"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("docs/example/shop/orders.py:5: from shop.pricing import price_of"),
            std::string::npos)
      << r.out;
}

TEST(Cli, NoCycleExitsZero) {
  fs::path dir = fs::path(testing::TempDir()) / "cyclefix_cli_nocycle";
  fs::remove_all(dir);
  fs::create_directories(dir / "pkg/util");
  std::ofstream(dir / "pkg/__init__.py") << "import pkg.util.version\n";
  std::ofstream(dir / "pkg/util/__init__.py") << "";
  std::ofstream(dir / "pkg/util/version.py") << "import pkg.util.regex\nfrom pkg.util import regex\n";
  std::ofstream(dir / "pkg/util/regex.py") << "import re\n";
  auto j = run_json("cycles '" + dir.string() + "'", 0);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["modules"], 4);
  EXPECT_TRUE(j["sccs"].empty());
  EXPECT_TRUE(j["cycles"].empty());
  fs::remove_all(dir);
}

TEST(Cli, BadInputIsReportedNotFatal) {
  fs::path dir = fs::path(testing::TempDir()) / "cyclefix_cli_bad";
  fs::remove_all(dir);
  fs::create_directories(dir / "pkg");
  std::ofstream(dir / "pkg/__init__.py") << "from pkg import a\n";
  std::ofstream(dir / "pkg/a.py") << "from pkg import b\n";
  std::ofstream(dir / "pkg/b.py") << "import pkg.a\ndef broken(:\n    pass\n";
  std::ofstream(dir / "pkg/bin.py", std::ios::binary) << std::string("\x7f" "ELF\0\0\0", 7);
  std::ofstream(dir / "pkg/latin.py", std::ios::binary) << "x = '\xe9'\n";
  std::ofstream(dir / "pkg/empty.py") << "";
  auto j = run_json("cycles '" + dir.string() + "'", 1);
  ASSERT_FALSE(j.is_discarded());
  std::map<std::string, std::string> problems;
  for (const auto& e : j["parse_errors"]) {
    std::string f = e["file"];
    problems[f.substr(f.rfind('/') + 1)] = e["message"].get<std::string>() + " @" +
                                            std::to_string(e["line"].get<int>());
  }
  ASSERT_TRUE(problems.count("b.py")) << j["parse_errors"].dump();
  EXPECT_NE(problems["b.py"].find("@2"), std::string::npos) << problems["b.py"];
  ASSERT_TRUE(problems.count("bin.py"));
  EXPECT_NE(problems["bin.py"].find("binary"), std::string::npos) << problems["bin.py"];
  ASSERT_TRUE(problems.count("latin.py"));
  EXPECT_NE(problems["latin.py"].find("UTF-8"), std::string::npos) << problems["latin.py"];
  EXPECT_FALSE(problems.count("empty.py"));  // an empty module is a valid module
  // The file with a syntax error is still analysed: its import closes the loop.
  ASSERT_EQ(j["sccs"].size(), 1u);
  EXPECT_EQ(j["sccs"][0]["modules"], (nlohmann::json{"pkg.a", "pkg.b"}));
  fs::remove_all(dir);
}

TEST(Cli, UsageErrorExitsTwo) {
  EXPECT_EQ(run_cyclefix("cycles --no-such-flag").status, 2);
  EXPECT_EQ(run_cyclefix("graph --format svg docs/example").status, 2);
}

TEST(Cli, GraphDotMarksCycleEdges) {
  CliRun r = run_cyclefix("graph --format dot docs/example");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("digraph imports"), std::string::npos);
  EXPECT_NE(r.out.find("\"shop.orders\" -> \"shop.pricing\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("color=red"), std::string::npos);
}

TEST(Cli, GraphJsonListsModulesAndEdges) {
  CliRun r = run_cyclefix("graph --format json docs/example");
  EXPECT_EQ(r.status, 0);
  auto g = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(g.is_discarded());
  EXPECT_EQ(g["modules"].size(), 3u);
  EXPECT_EQ(g["edges"].size(), 2u);
}

// Trap (a): the import moved into __init__ still runs through DEFAULT = Verifier().
TEST(Cli, LocalImportReachedAtImportTimeIsStillACycle) {
  auto j = run_json("cycles golden/trap_reached_init/input", 1);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["sccs"].size(), 1u);
  EXPECT_EQ(j["sccs"][0]["modules"], (nlohmann::json{"app.config", "app.program", "app.verifier"}));
  EXPECT_EQ(j["sccs"][0]["failing_entry_points"], (nlohmann::json{{"normal", 2}, {"bare", 2}}));
  bool local_hop = false;
  for (const auto& h : j["cycles"][0]["hops"])
    if (h["from"] == "app.verifier") local_hop = h["line"] == 7;  // the import inside __init__
  EXPECT_TRUE(local_hop) << j["cycles"].dump(2);
}

// Trap (b): `import a.b as c` / `from . import sub` with deferred uses only.
TEST(Cli, ModuleOnlyCycleIsHarmless) {
  CliRun r = run_cyclefix("cycles golden/trap_harmless_module_cycle/input");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("harmless: no entry point fails"), std::string::npos) << r.out;
  auto j = run_json("cycles golden/trap_harmless_module_cycle/input", 1);
  EXPECT_EQ(j["sccs"][0]["failing_entry_points"], (nlohmann::json{{"normal", 0}, {"bare", 0}}));
}

TEST(Cli, SimulateSeedShapeBareEntry) {
  auto j = run_json("simulate golden/seed_shape/input --entry bare", 1);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["entry_mode"], "bare");
  std::map<std::string, nlohmann::json> failing;
  for (const auto& f : j["failing_entry_points"]) failing[f["module"]] = f;
  ASSERT_TRUE(failing.count("exir.verification.verifier"));
  const auto& v = failing["exir.verification.verifier"];
  EXPECT_EQ(v["error"], "ImportError");
  EXPECT_TRUE(v["circular"].get<bool>());
  EXPECT_EQ(v["chain"].front()["module"], "exir.verification.verifier");
  EXPECT_EQ(v["chain"].front()["line"], 10);
  EXPECT_NE(v["message"].get<std::string>().find(
                "cannot import name 'EXIRATenDialectVerifier' from partially initialized module "
                "'exir.verification.verifier' (most likely due to a circular import)"),
            std::string::npos);
  EXPECT_TRUE(failing.count("exir.program"));
  // Not circular: a name taken from a bare stub package, as CPython reports it.
  ASSERT_TRUE(failing.count("exir.program._program"));
  EXPECT_FALSE(failing["exir.program._program"]["circular"].get<bool>());
}

// Issue 15: an edge that only a `__main__` block or another module's
// import-time call makes is no cycle: `cycles` exits 0.
// CYCLEFIX_PROFILE: a line per stage, and the facts by kind once parsing ends.
TEST(Cli, ProfilePrintsStagesAndTheFactsByKind) {
  fs::path dir = fs::path(testing::TempDir()) / "cyclefix_cli_profile";
  fs::remove_all(dir);
  fs::create_directories(dir / "p");
  std::ofstream(dir / "p/__init__.py") << "";
  std::ofstream(dir / "p/a.py") << "from p.b import f\n\nclass A:\n    def m(self):\n        return f()\n";
  std::ofstream(dir / "p/b.py") << "import p.a\n\ndef f():\n    return p.a.A\n";
  auto run = cyclefix::testing_support::run_shell("CYCLEFIX_PROFILE=1 '" + std::string(CYCLEFIX_BINARY) +
                                                  "' cycles --no-cache '" + dir.string() + "' 2>&1 >/dev/null");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("cyclefix: profile: parsing "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("cyclefix: profile: graph "), std::string::npos) << run.out;
  // Two import statements, two functions, one class; uses of imported names:
  // `f` in A.m and `p.a.A` in f.
  EXPECT_NE(run.out.find("cyclefix: profile: facts: uses 2 ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" imports 2 ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" functions 2 ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" classes 1 ("), std::string::npos) << run.out;
  fs::remove_all(dir);
}

TEST(Cli, MainGuardAndCalleeChargedEdgesMakeNoCycle) {
  auto charged = run_json("cycles golden/reach_callee_charged/input", 0);
  ASSERT_FALSE(charged.is_discarded());
  EXPECT_TRUE(charged["sccs"].empty()) << charged["sccs"].dump(2);

  fs::path dir = fs::path(testing::TempDir()) / "cyclefix_cli_main_guard";
  fs::remove_all(dir);
  fs::create_directories(dir / "tool");
  std::ofstream(dir / "tool/__init__.py") << "";
  std::ofstream(dir / "tool/cli.py") << "from tool.core import run\n\n"
                                        "def main():\n    from tool.report import show\n    show(run())\n\n"
                                        "if __name__ == \"__main__\":\n    import tool.report\n    main()\n";
  std::ofstream(dir / "tool/core.py") << "def run():\n    return 1\n";
  std::ofstream(dir / "tool/report.py") << "import tool.cli\n\ndef show(x):\n    print(x)\n";
  auto j = run_json("cycles '" + dir.string() + "'", 0);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["sccs"].empty()) << j["sccs"].dump(2);
  fs::remove_all(dir);
}

// The summary's and the JSON report's line counts are those of the diff
// printed, new modules included.
TEST(Cli, SummaryCountsTheDiffsLines) {
  const fs::path json = fs::temp_directory_path() / ("cyclefix_cli_lines." + std::to_string(::getpid()) + ".json");
  auto r = cyclefix::testing_support::run_in(
      CYCLEFIX_SOURCE_DIR, "'" + std::string(CYCLEFIX_BINARY) +
                               "' --no-cache --json '" + json.string() + "' golden/extract_basic/input golden/fmt_wrap_long_imports/input");
  ASSERT_EQ(r.status, 0) << r.err;
  std::size_t added = 0, removed = 0;
  std::istringstream diff(r.out);
  for (std::string line; std::getline(diff, line);) {
    if (line.starts_with("+++") || line.starts_with("---")) continue;
    added += line.starts_with("+");
    removed += line.starts_with("-");
  }
  ASSERT_GT(added, 0u);
  const std::string counts = "(+" + std::to_string(added) + " -" + std::to_string(removed) + " lines)";
  EXPECT_NE(r.err.find(counts), std::string::npos) << counts << "\n" << r.err;
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in, nullptr, false);
  fs::remove(json);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["rewrite"]["lines_added"], added);
  EXPECT_EQ(j["rewrite"]["lines_removed"], removed);
  std::size_t per_file = 0;
  bool created = false;
  for (const auto& f : j["rewrite"]["files"]) {
    per_file += f["lines_added"].get<std::size_t>();
    created = created || f.value("created", false);
  }
  EXPECT_EQ(per_file, added);
  EXPECT_TRUE(created);  // extract_basic makes a new module
}
