// The main command's CI output formats (--output-format github|gitlab|json|sarif):
// GitHub's escaping rules, the GitLab Code Quality fields GitLab documents, and
// the formats end to end on the seed-shaped golden case.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "ci_annotations.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;
using cyclefix::CiFinding;

namespace {

struct CliRun {
  int status = -1;
  std::string out, err;
};

// The binary in `cwd` with `args`; stdout and stderr captured (stderr in a file
// per process: ctest -j runs tests side by side).
CliRun run_cyclefix(const fs::path& cwd, const std::string& args) {
  auto r = cyclefix::testing_support::run_in(cwd, "'" + std::string(CYCLEFIX_BINARY) + "' --no-cache " + args);
  return {r.status, std::move(r.out), std::move(r.err)};
}

std::string line_of(const fs::path& file, int line) {
  std::ifstream in(file);
  std::string s;
  for (int i = 0; i < line && std::getline(in, s); ++i) {
  }
  return s;
}

// Every field GitLab documents for a Code Quality report entry
// (docs.gitlab.com, "Code Quality report format"): description, check_name,
// fingerprint, severity, location.path, location.lines.begin; `root` is what
// location.path is relative to.
void expect_valid_code_quality(const nlohmann::json& report, const fs::path& root) {
  ASSERT_TRUE(report.is_array()) << report.dump();
  const std::set<std::string> severities = {"info", "minor", "major", "critical", "blocker"};
  std::set<std::string> fingerprints;
  for (const auto& issue : report) {
    ASSERT_TRUE(issue.is_object()) << issue.dump();
    ASSERT_TRUE(issue["description"].is_string()) << issue.dump();
    EXPECT_FALSE(issue["description"].get<std::string>().empty());
    EXPECT_EQ(issue["description"].get<std::string>().find('\n'), std::string::npos);
    ASSERT_TRUE(issue["check_name"].is_string()) << issue.dump();
    ASSERT_TRUE(issue["fingerprint"].is_string()) << issue.dump();
    EXPECT_TRUE(fingerprints.insert(issue["fingerprint"].get<std::string>()).second) << "fingerprints are unique";
    ASSERT_TRUE(issue["severity"].is_string()) << issue.dump();
    EXPECT_TRUE(severities.count(issue["severity"].get<std::string>())) << issue["severity"];
    ASSERT_TRUE(issue["location"]["path"].is_string()) << issue.dump();
    const std::string path = issue["location"]["path"];
    EXPECT_FALSE(fs::path(path).is_absolute()) << path;
    EXPECT_TRUE(fs::is_regular_file(root / path)) << path;
    ASSERT_TRUE(issue["location"]["lines"]["begin"].is_number_integer()) << issue.dump();
    EXPECT_GE(issue["location"]["lines"]["begin"].get<int>(), 1);
    // Code Climate's own required fields, which GitLab accepts too.
    EXPECT_EQ(issue["type"], "issue");
    EXPECT_TRUE(issue["categories"].is_array());
  }
}

CiFinding finding(const std::string& check, const std::string& file, int line, const std::string& identity) {
  CiFinding f;
  f.check = check;
  f.file = file;
  f.line = line;
  f.title = "t";
  f.summary = "s";
  f.identity = identity;
  return f;
}

}  // namespace

// A cut that keeps its edge (move-below, late-bind) fixes a failure; it does
// not "break" the loop, and it is no deferral.
TEST(GithubFormat, CutsSayWhatTheirStrategyDoes) {
  auto run = cyclefix::testing_support::run_shell(std::string("cd '") + CYCLEFIX_SOURCE_DIR + "' && '" +
                                                  CYCLEFIX_BINARY +
                                                  "' golden/move_below_basic/input --only-failing "
                                                  "--allow-late-imports --output-format github 2>/dev/null");
  EXPECT_EQ(run.status, 0) << run.out;  // a diff, not --check
  EXPECT_NE(run.out.find("title=import cycle%3A rewrite this import::Move `from p.b import register` below the "
                         "definitions it needs: it fixes the import failure on import cycle p.a -> p.b -> p.a "
                         "(the loop stays)."),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("Defer `"), std::string::npos) << run.out;
}

TEST(GithubFormat, EscapesAsTheActionsToolkitDoes) {
  EXPECT_EQ(cyclefix::github_escape_data("50% a:b, c\r\nd"), "50%25 a:b, c%0D%0Ad");
  EXPECT_EQ(cyclefix::github_escape_property("50% a:b, c\r\nd"), "50%25 a%3Ab%2C c%0D%0Ad");
  CiFinding f = finding("cyclefix/import-to-defer", "dir,x/a:b.py", 3, "x");
  f.title = "t: 1, 2";
  f.summary = "line one: 100%";
  f.details = "two\nthree";
  EXPECT_EQ(cyclefix::github_workflow_commands({f}),
            "::warning file=dir%2Cx/a%3Ab.py,line=3,title=t%3A 1%2C 2::line one: 100%25%0Atwo%0Athree\n");
  f.failure = f.certain_failure = true;
  EXPECT_EQ(cyclefix::github_workflow_commands({f}).rfind("::error file=", 0), 0u);
}

TEST(GitlabFormat, FingerprintsIgnoreLinesAndStayUnique) {
  auto a = cyclefix::gitlab_code_quality({finding("c", "p.py", 3, "same"), finding("c", "p.py", 9, "same"),
                                          finding("d", "p.py", 3, "same")});
  auto b = cyclefix::gitlab_code_quality({finding("c", "p.py", 30, "same")});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0]["fingerprint"], b[0]["fingerprint"]) << "a moved line keeps its fingerprint";
  EXPECT_NE(a[0]["fingerprint"], a[1]["fingerprint"]) << "a repeated identity gets another";
  EXPECT_NE(a[0]["fingerprint"], a[2]["fingerprint"]) << "another check, another fingerprint";
  EXPECT_EQ(a[0]["severity"], "minor");
  CiFinding uncertain = finding("c", "p.py", 1, "u"), certain = uncertain;
  uncertain.failure = true;
  certain.failure = certain.certain_failure = true;
  auto c = cyclefix::gitlab_code_quality({uncertain, certain});
  EXPECT_EQ(c[0]["severity"], "major");
  EXPECT_EQ(c[1]["severity"], "critical");
}

TEST(GitlabFormat, SeedShapeHasTheDocumentedFields) {
  fs::path src = CYCLEFIX_SOURCE_DIR;
  CliRun r = run_cyclefix(src, "golden/seed_shape/input --output-format gitlab");
  ASSERT_EQ(r.status, 0) << r.err;
  auto report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << r.out;
  expect_valid_code_quality(report, src);
  std::map<std::string, int> per_check;
  for (const auto& issue : report) {
    per_check[issue["check_name"]]++;
    std::string text = line_of(src / issue["location"]["path"].get<std::string>(), issue["location"]["lines"]["begin"]);
    EXPECT_NE(text.find("import"), std::string::npos) << issue.dump() << ": " << text;
  }
  EXPECT_GE(per_check["cyclefix/circular-import"], 2);  // verifier and program fail (bare entry)
  EXPECT_EQ(per_check["cyclefix/import-to-defer"], 3);  // the three cuts in _capture.py
  // The summary still goes to stderr, as with the diff.
  EXPECT_NE(r.err.find("3 of 3 cut(s) made"), std::string::npos) << r.err;
}

TEST(GitlabFormat, FingerprintsSurviveAnEditAboveTheStatement) {
  // Per process: two test runs at once (a local ctest beside a sanitizer
  // build's) shared the folder and saw each other's edit.
  fs::path dir = fs::path(testing::TempDir()) / ("cyclefix_gitlab_shift." + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fs::path(CYCLEFIX_SOURCE_DIR) / "golden/seed_shape/input", dir / "input", fs::copy_options::recursive);
  auto fingerprints = [&] {
    CliRun r = run_cyclefix(dir, "input --output-format gitlab");
    EXPECT_EQ(r.status, 0) << r.err;
    auto report = nlohmann::json::parse(r.out, nullptr, false);
    std::map<std::string, int> out;  // fingerprint -> line
    for (const auto& issue : report) out[issue["fingerprint"]] = issue["location"]["lines"]["begin"];
    return out;
  };
  auto before = fingerprints();
  fs::path capture = dir / "input/exir/capture/_capture.py";
  std::stringstream old;
  old << std::ifstream(capture).rdbuf();
  std::ofstream(capture, std::ios::trunc) << "# a new first line\n" << old.str();
  auto after = fingerprints();
  ASSERT_EQ(before.size(), after.size());
  int moved = 0;
  for (const auto& [fp, line] : before) {
    ASSERT_TRUE(after.count(fp)) << fp;
    moved += after[fp] != line;
  }
  EXPECT_GE(moved, 3) << "the cuts in _capture.py moved down a line and kept their fingerprints";
  fs::remove_all(dir);
}

TEST(GithubFormat, SeedShapeIsOneWorkflowCommandPerFinding) {
  fs::path src = CYCLEFIX_SOURCE_DIR;
  CliRun r = run_cyclefix(src, "golden/seed_shape/input --output-format github");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::regex command(R"(::(error|warning) file=([^,:]+),line=([0-9]+),title=([^,:]+)::(.+))");
  std::istringstream lines(r.out);
  std::string line;
  int errors = 0, warnings = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, command)) << line;
    (m[1] == "error" ? errors : warnings)++;
    EXPECT_NE(line_of(src / m[2].str(), std::stoi(m[3].str())).find("import"), std::string::npos) << line;
  }
  EXPECT_GE(errors, 2);
  EXPECT_EQ(warnings, 3);
}

TEST(OutputFormat, JsonIsTheReportAndStdoutIsNotShared) {
  fs::path src = CYCLEFIX_SOURCE_DIR;
  CliRun json = run_cyclefix(src, "golden/seed_shape/input --output-format json");
  CliRun dash = run_cyclefix(src, "golden/seed_shape/input --json -");
  ASSERT_EQ(json.status, 0) << json.err;
  auto a = nlohmann::json::parse(json.out, nullptr, false), b = nlohmann::json::parse(dash.out, nullptr, false);
  ASSERT_FALSE(a.is_discarded()) << json.out;
  a["plan"].erase("seconds");
  b["plan"].erase("seconds");
  EXPECT_EQ(a, b);
  CliRun both = run_cyclefix(src, "golden/seed_shape/input --output-format gitlab --json -");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("both write to stdout"), std::string::npos) << both.err;
  CliRun split = run_cyclefix(src, "golden/seed_shape/input --output-format github --split-by package --out-dir x");
  EXPECT_EQ(split.status, 2);
  CliRun bad = run_cyclefix(src, "golden/seed_shape/input --output-format xml");
  EXPECT_EQ(bad.status, 2);
}

TEST(OutputFormat, SarifOfTheMainCommandHasCyclesAndFailures) {
  fs::path src = CYCLEFIX_SOURCE_DIR;
  CliRun r = run_cyclefix(src, "golden/seed_shape/input --output-format sarif --check");
  EXPECT_EQ(r.status, 1) << r.err;  // --check: a change would be made
  auto log = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(log.is_discarded()) << r.out;
  EXPECT_EQ(log["version"], "2.1.0");
  const auto& rules = log["runs"][0]["tool"]["driver"]["rules"];
  std::map<std::string, int> per_rule;
  for (const auto& res : log["runs"][0]["results"]) {
    per_rule[res["ruleId"]]++;
    EXPECT_EQ(rules.at(res["ruleIndex"].get<std::size_t>())["id"], res["ruleId"]);
    const auto& pl = res["locations"][0]["physicalLocation"];
    EXPECT_NE(line_of(src / pl["artifactLocation"]["uri"].get<std::string>(), pl["region"]["startLine"]).find("import"),
              std::string::npos)
        << res.dump();
  }
  EXPECT_EQ(per_rule["CF001"], 1);
  EXPECT_GE(per_rule["CF002"], 2);
  EXPECT_EQ(per_rule["CF003"], 3);  // the three cuts in _capture.py
  // `cycles --format sarif` has no plan: no CF003 rule.
  CliRun cycles = run_cyclefix(src, "cycles golden/seed_shape/input --format sarif");
  auto cycles_log = nlohmann::json::parse(cycles.out, nullptr, false);
  ASSERT_FALSE(cycles_log.is_discarded()) << cycles.out;
  EXPECT_EQ(cycles_log["runs"][0]["tool"]["driver"]["rules"].size(), 2u);
}
