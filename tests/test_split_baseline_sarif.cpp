// Bulk migration and CI integration: CODEOWNERS matching, patches split by
// package / owner / cycle (each applies alone to a clean copy, together they
// are the unsplit diff), cycle baselines (a new cycle fails, a known one
// passes, line shifts and reformatting do not make a cycle new), and SARIF
// 2.1.0 output checked against the schema's required fields.

#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include "shell.hpp"

#include "baseline.hpp"
#include "codeowners.hpp"
#include "cut_plan.hpp"
#include "in_memory.hpp"
#include "rewrite.hpp"
#include "sarif.hpp"
#include "split_patches.hpp"

namespace fs = std::filesystem;
using namespace cyclefix;
using cyclefix::testing_support::analysis_of;

namespace {

struct CliResult {
  int status = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Runs a shell command in `cwd`; stdout and stderr captured. The stderr file is
// per process: ctest -j runs this file's tests side by side.
CliResult sh(const fs::path& cwd, const std::string& cmd) {
  auto run = cyclefix::testing_support::run_in(cwd, cmd);
  CliResult r;
  r.status = run.status;
  r.out = std::move(run.out);
  r.err = std::move(run.err);
  return r;
}

CliResult run_main(const fs::path& cwd, const std::string& args) {
  return sh(cwd, std::string("'") + CYCLEFIX_BINARY + "' --no-cache " + args);
}

// The args of a subcommand go after its name: `cycles --no-cache ...`.
CliResult run_sub(const fs::path& cwd, const std::string& sub, const std::string& args) {
  return sh(cwd, std::string("'") + CYCLEFIX_BINARY + "' " + sub + " --no-cache " + args);
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::path(testing::TempDir()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Copies a tree, leaving out `.git` (the tests' fake repository marker).
void copy_tree(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    if (e.path().filename() == ".git") continue;
    fs::copy(e.path(), to / e.path().filename(), fs::copy_options::recursive);
  }
}

// Every regular file under `root` (relative path -> bytes).
std::map<std::string, std::string> tree_of(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().string().find("/.git") == std::string::npos)
      out[fs::relative(e.path(), root).generic_string()] = slurp(e.path());
  return out;
}

// The per-file sections of a unified diff, by path.
// A new file's section starts `--- /dev/null` and is named by its `+++ b/` line.
std::map<std::string, std::string> file_diffs(const std::string& diff) {
  std::map<std::string, std::string> out;
  auto header = [&](std::size_t from) {
    std::size_t best = std::string::npos;
    for (const char* h : {"--- a/", "--- /dev/null\n"})
      for (std::size_t p = from; (p = diff.find(h, p)) != std::string::npos; ++p)
        if (p == 0 || diff[p - 1] == '\n') {
          best = std::min(best, p);
          break;
        }
    return best;
  };
  for (std::size_t at = header(0); at != std::string::npos;) {
    std::size_t end = header(at + 1);
    std::string block = diff.substr(at, (end == std::string::npos ? diff.size() : end) - at);
    std::size_t name = block.starts_with("--- a/") ? 6 : block.find("+++ b/") + 6;
    out[block.substr(name, block.find('\n', name) - name)] = block;
    at = end;
  }
  return out;
}

// golden cases with distinct top-level packages, combined into one tree: four cycles.
fs::path combined_golden_tree(const std::string& name) {
  fs::path dir = fresh_dir(name);
  for (const char* c : {"seed_shape", "move_two_cuts_same_file", "tc_annotation_and_body", "lesson2_shared_module"})
    for (const auto& e : fs::directory_iterator(fs::path(CYCLEFIX_SOURCE_DIR) / "golden" / c / "input"))
      fs::copy(e.path(), dir / e.path().filename(), fs::copy_options::recursive);
  return dir;
}

// Checks that each patch in `out` applies alone to a clean copy of `tree` (in
// either order relative to the others), and that all of them together give
// what the unsplit diff gives, file for file and byte for byte.
void expect_patches_compose(const fs::path& tree, const fs::path& out, const std::string& unsplit,
                            std::size_t expected_patches) {
  std::vector<fs::path> patches;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".diff") patches.push_back(e.path());
  std::sort(patches.begin(), patches.end());
  ASSERT_EQ(patches.size(), expected_patches);

  // All together equal the unsplit diff, file for file.
  std::map<std::string, std::string> from_patches;
  for (const auto& p : patches) {
    EXPECT_TRUE(fs::exists(fs::path(p).replace_extension(".md"))) << p;
    for (auto& [path, block] : file_diffs(slurp(p))) {
      EXPECT_FALSE(from_patches.count(path)) << path << " is in two patches";
      from_patches[path] = block;
    }
  }
  EXPECT_EQ(from_patches, file_diffs(unsplit));
  std::string concatenated;
  for (const auto& [path, block] : from_patches) concatenated += block;
  EXPECT_EQ(concatenated, unsplit);

  fs::path base = tree.parent_path();
  fs::path whole = base / (tree.filename().string() + "_whole");
  copy_tree(tree, whole);
  put(base / "unsplit.diff", unsplit);
  ASSERT_EQ(sh(whole, "git apply '" + (base / "unsplit.diff").string() + "'").status, 0);

  // Each alone on a clean copy.
  for (const auto& p : patches) {
    fs::path alone = base / (tree.filename().string() + "_alone");
    copy_tree(tree, alone);
    CliResult r = sh(alone, "patch -p1 --batch --forward -s < '" + p.string() + "'");
    EXPECT_EQ(r.status, 0) << p << "\n" << r.out << r.err;
    fs::remove_all(alone);
  }
  // In reverse order, one after the other: the same tree as the unsplit diff.
  fs::path all = base / (tree.filename().string() + "_all");
  copy_tree(tree, all);
  for (auto it = patches.rbegin(); it != patches.rend(); ++it) {
    CliResult r = sh(all, "git apply '" + it->string() + "'");
    EXPECT_EQ(r.status, 0) << *it << "\n" << r.err;
  }
  EXPECT_EQ(tree_of(all), tree_of(whole));
  fs::remove_all(all);
  fs::remove_all(whole);
}

}  // namespace

// ---------------------------------------------------------------- CODEOWNERS

TEST(CodeOwners, PatternsFollowGitHubSemantics) {
  EXPECT_TRUE(codeowners_matches("*", "a/b/c.py"));
  EXPECT_TRUE(codeowners_matches("*.py", "a/b/c.py"));
  EXPECT_FALSE(codeowners_matches("*.js", "a/b/c.py"));
  EXPECT_TRUE(codeowners_matches("/build/logs/", "build/logs/x/y.log"));
  EXPECT_FALSE(codeowners_matches("/build/logs/", "src/build/logs/y.log"));
  EXPECT_TRUE(codeowners_matches("apps/", "apps/x.py"));
  EXPECT_TRUE(codeowners_matches("apps/", "deep/apps/x.py"));  // no leading slash: any depth
  EXPECT_FALSE(codeowners_matches("apps/", "apps"));           // a file named apps is not the directory
  EXPECT_TRUE(codeowners_matches("docs/*", "docs/getting-started.md"));
  EXPECT_FALSE(codeowners_matches("docs/*", "docs/build-app/troubleshooting.md"));
  EXPECT_TRUE(codeowners_matches("docs/**", "docs/build-app/troubleshooting.md"));
  EXPECT_TRUE(codeowners_matches("**/logs", "a/b/logs/x.txt"));
  EXPECT_TRUE(codeowners_matches("src/pkg", "src/pkg/mod.py"));  // inner slash: anchored, directory
  EXPECT_FALSE(codeowners_matches("src/pkg", "lib/src/pkg/mod.py"));
  EXPECT_TRUE(codeowners_matches("pkg", "lib/pkg/mod.py"));
  EXPECT_TRUE(codeowners_matches("/pkg/core.py", "pkg/core.py"));
  EXPECT_FALSE(codeowners_matches("/pkg/core.py", "pkg/core.pyc"));
  EXPECT_TRUE(codeowners_matches("file[1].py", "file[1].py"));  // no character ranges on GitHub
}

TEST(CodeOwners, LastMatchWinsAndOwnerlessLinesUnown) {
  auto rules = parse_codeowners(
      "# comment\n"
      "\n"
      "*        @org/everyone\n"
      "/pkg/    @org/pkg-team  dev@example.com   # trailing comment\n"
      "/pkg/generated/\n"
      "/pkg/\\#odd.py @odd\r\n");
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[1].owners, (std::vector<std::string>{"@org/pkg-team", "dev@example.com"}));
  EXPECT_EQ(rules[1].line, 4);
  EXPECT_EQ(rules[3].pattern, "/pkg/#odd.py");
  CodeOwners c;
  c.rules = rules;
  EXPECT_EQ(c.owners_of("tools/x.py"), (std::vector<std::string>{"@org/everyone"}));
  EXPECT_EQ(c.owners_of("pkg/a.py"), (std::vector<std::string>{"@org/pkg-team", "dev@example.com"}));
  EXPECT_TRUE(c.owners_of("pkg/generated/g.py").empty());
  EXPECT_EQ(c.owners_of("pkg/#odd.py"), (std::vector<std::string>{"@odd"}));
}

TEST(CodeOwners, FoundAtTheRepositoryRootInGitHubsOrder) {
  fs::path repo = fresh_dir("cyclefix_codeowners_find");
  fs::create_directories(repo / ".git");
  fs::create_directories(repo / "src/pkg");
  put(repo / "CODEOWNERS", "* @root\n");
  put(repo / "docs/CODEOWNERS", "* @docs\n");
  std::string err;
  auto c = find_codeowners(repo / "src/pkg", &err);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->root, repo);
  EXPECT_EQ(c->owners_of("x"), (std::vector<std::string>{"@root"}));
  put(repo / ".github/CODEOWNERS", "* @github\n");
  c = find_codeowners(repo / "src", &err);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->owners_of("x"), (std::vector<std::string>{"@github"}));
  EXPECT_EQ(c->owners_of_file(repo / "src/pkg/m.py"), (std::vector<std::string>{"@github"}));
  EXPECT_TRUE(c->owners_of_file("/elsewhere/m.py").empty());
  fs::remove_all(repo);
}

// ---------------------------------------------------------- split, in memory

namespace {

struct Rewritten {
  std::vector<std::pair<std::string, std::string>> files;
  Analysis a;
  CycleReport r;
  CutPlan plan;
  RewriteResult rw;
};

Rewritten rewritten(std::vector<std::pair<std::string, std::string>> files) {
  Rewritten w{files, analysis_of(files), {}, {}, {}};
  w.r = build_cycle_report(w.a, 100);
  w.plan = plan_cuts(w.a, w.r, PlanOptions{});
  std::vector<std::string> sources;
  for (const auto& f : files) sources.push_back(f.second);
  w.rw = rewrite(w.a, w.r, w.plan, RewriteOptions{}, &sources);
  return w;
}

// Two packages, one cycle each, and a third cycle spanning both.
const std::vector<std::pair<std::string, std::string>> kTwoPackages = {
    {"alpha/__init__.py", ""},
    {"alpha/a.py", "from alpha.b import B\n\nclass A:\n    pass\n\ndef make():\n    return B()\n"},
    {"alpha/b.py", "from alpha.a import A\n\nclass B(A):\n    pass\n"},
    {"beta/__init__.py", ""},
    {"beta/c.py", "from beta.d import D\n\nclass C:\n    pass\n\ndef make():\n    return D()\n"},
    {"beta/d.py", "from beta.c import C\n\nclass D(C):\n    pass\n"},
};

}  // namespace

TEST(SplitPatches, OneGroupPerPackageEachFileOnce) {
  Rewritten w = rewritten(kTwoPackages);
  ASSERT_EQ(w.r.components.size(), 2u);
  ASSERT_EQ(w.rw.files.size(), 2u);
  PatchSplit s = split_patches(w.a, w.r, w.plan, w.rw, SplitBy::Package, nullptr);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].name, "alpha");
  EXPECT_EQ(s.groups[1].name, "beta");
  EXPECT_EQ(s.groups[0].stem, "alpha");
  EXPECT_EQ(s.groups[0].components, (std::vector<std::size_t>{0}));
  std::string patch = group_patch(w.a, w.rw, s.groups[0]);
  EXPECT_NE(patch.find("--- a/alpha/a.py"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("beta/"), std::string::npos) << patch;
  std::string md = group_summary(w.a, w.r, w.plan, w.rw, s, 0);
  EXPECT_NE(md.find("# Break import cycles: package `alpha`"), std::string::npos) << md;
  EXPECT_NE(md.find("`alpha.a -> alpha.b -> alpha.a`"), std::string::npos) << md;
  EXPECT_NE(md.find("Moves into `make()` (the functions that use the name"), std::string::npos) << md;
  EXPECT_NE(md.find("Cost 4 = 1 (statement line) + 1 x 3 (functions)"), std::string::npos) << md;
  // The statement the planner passed over, and why it cannot be deferred.
  EXPECT_NE(md.find("`alpha/b.py:1` `from alpha.a import A`: used at import time"), std::string::npos) << md;
  EXPECT_NE(md.find("All the cuts this cycle gets are in this patch"), std::string::npos) << md;
  std::string index = split_index(w.a, w.r, w.plan, w.rw, s);
  EXPECT_NE(index.find("[alpha.diff](alpha.diff)"), std::string::npos) << index;
  EXPECT_NE(index.find("[beta.diff](beta.diff)"), std::string::npos) << index;
}

TEST(SplitPatches, ByOwnerACycleSpanningTwoOwnersNamesTheOtherPatch) {
  // alpha.a and alpha.b import each other at module level; both imports can be deferred.
  Rewritten w = rewritten({
      {"alpha/__init__.py", ""},
      {"alpha/a.py", "from alpha.b import g\n\ndef f():\n    return g()\n"},
      {"alpha/b.py", "from alpha.a import f\n\ndef g():\n    return f()\n"},
  });
  ASSERT_EQ(w.r.components.size(), 1u);
  // Make both statements necessary: the planner cuts one; force the other too.
  ASSERT_EQ(w.plan.cuts.size(), 1u);
  w.plan.cuts = {0, 1};
  std::vector<std::string> sources;
  for (const auto& f : w.files) sources.push_back(f.second);
  w.rw = rewrite(w.a, w.r, w.plan, RewriteOptions{}, &sources);
  ASSERT_EQ(w.rw.files.size(), 2u);
  CodeOwners owners;
  owners.root = fs::current_path();
  owners.file = "CODEOWNERS";
  owners.rules = parse_codeowners("*.py @org/core\n/alpha/b.py @org/b-team @carol\n");
  PatchSplit s = split_patches(w.a, w.r, w.plan, w.rw, SplitBy::Owner, &owners);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].name, "@org/b-team @carol");
  EXPECT_EQ(s.groups[0].stem, "org_b-team+carol");
  EXPECT_EQ(s.groups[1].name, "@org/core");
  EXPECT_EQ(s.groups[1].stem, "org_core");
  std::string md = group_summary(w.a, w.r, w.plan, w.rw, s, 1);
  EXPECT_NE(md.find("The cycle also gets cuts in `org_b-team+carol.diff`"), std::string::npos) << md;
  // Without CODEOWNERS everything is unowned.
  PatchSplit none = split_patches(w.a, w.r, w.plan, w.rw, SplitBy::Owner, nullptr);
  ASSERT_EQ(none.groups.size(), 1u);
  EXPECT_EQ(none.groups[0].name, "unowned");
}

TEST(SplitPatches, StemsAreSafeAndUnique) {
  EXPECT_EQ(file_stem("@org/team"), "org_team");
  EXPECT_EQ(file_stem("../../etc"), "_.._etc");
  EXPECT_EQ(file_stem("a b"), "a_b");
  EXPECT_EQ(file_stem("@"), "group");
  // A package called `index` does not overwrite index.md.
  Rewritten w = rewritten({
      {"index/__init__.py", ""},
      {"index/a.py", "from index.b import g\n\ndef f():\n    return g()\n"},
      {"index/b.py", "from index.a import f\n\nX = f\n"},
  });
  PatchSplit s = split_patches(w.a, w.r, w.plan, w.rw, SplitBy::Package, nullptr);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].stem, "index-2");
}

// ------------------------------------------------------------- split, binary

// A move below keeps its edge: the patch description lists the loop as one
// that stays with its failure fixed, not as broken.
TEST(SplitPatchesCli, LoopsAMoveBelowFixesAreNotListedAsBroken) {
  fs::path out = fresh_dir("cyclefix_split_move_below");
  auto r = run_main(CYCLEFIX_SOURCE_DIR, "golden/move_below_basic/input --only-failing --allow-late-imports "
                                         "--split-by cycle --out-dir '" + out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string md = slurp(out / "p.a.md");
  EXPECT_NE(md.find("Loops this patch breaks (0 of the 1 listed):"), std::string::npos) << md;
  EXPECT_NE(md.find("Loops that stay, whose import failure this patch fixes"), std::string::npos) << md;
  EXPECT_NE(md.find("- `p.a -> p.b -> p.a`"), std::string::npos) << md;
  // The opening sentence says what the patch does to the statement, not "defers".
  EXPECT_NE(md.find("This patch changes 1 import statement in 1 file: 1 moved below the definitions"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("This patch defers"), std::string::npos) << md;
  // Its cut fixes a failure on a loop that stays: it breaks nothing.
  EXPECT_NE(md.find("- Fixes the import failure on `p.a -> p.b -> p.a` (the import stays on the loop)"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("- Breaks:"), std::string::npos) << md;
  // The moved statement is pinned as a deferral, and says what happened to it instead.
  EXPECT_NE(md.find("'register' in a decorator at golden/move_below_basic/input/p/a.py:11; changed instead: "
                    "move-below (see Cuts)"),
            std::string::npos)
      << md;
  fs::remove_all(out);
}

TEST(SplitPatchesCli, AnExtractionsNewModuleGoesWithItsReader) {
  fs::path tree = fresh_dir("cyclefix_split_extract/tree");
  for (const char* c : {"extract_basic", "extract_closure_relative", "extract_shared_two_readers"})
    for (const auto& e : fs::directory_iterator(fs::path(CYCLEFIX_SOURCE_DIR) / "golden" / c / "input"))
      fs::copy(e.path(), tree / e.path().filename(), fs::copy_options::recursive);
  CliResult whole = run_main(tree, ".");
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_NE(whole.err.find("and 3 new module(s)"), std::string::npos) << whole.err;
  ASSERT_EQ(file_diffs(whole.out).size(), 10u) << whole.out;  // 7 changed files, 3 new modules
  fs::path out = tree.parent_path() / "out";
  CliResult split = run_main(tree, ". --split-by package --out-dir ../out");
  ASSERT_EQ(split.status, 0) << split.err;
  // Each patch holds its package's new module: it applies alone.
  EXPECT_NE(slurp(out / "shapes.diff").find("--- /dev/null\n+++ b/shapes/_core_defs.py\n"), std::string::npos);
  EXPECT_NE(slurp(out / "k.md").find("in 3 files and creates 1 new module"), std::string::npos) << slurp(out / "k.md");
  expect_patches_compose(tree, out, whole.out, 3);
  fs::remove_all(tree.parent_path());
}

TEST(SplitPatchesCli, AReaderInAnotherPatchIsToldToApplyTheCreatorFirst) {
  fs::path tree = fresh_dir("cyclefix_split_extract_order/tree");
  put(tree / "lib/__init__.py", "");
  put(tree / "app1/__init__.py", "");
  put(tree / "app2/__init__.py", "");
  put(tree / "lib/core.py", "from app1 import a\nfrom app2 import b\n\nLIMIT = 3\nBOTH = (a.V, b.W)\n");
  put(tree / "app1/a.py", "from lib.core import LIMIT\n\nV = LIMIT\n");
  put(tree / "app2/b.py", "from lib.core import LIMIT\n\nW = LIMIT + 1\n");
  CliResult split = run_main(tree, ". --split-by package --out-dir ../out");
  ASSERT_EQ(split.status, 0) << split.err;
  const fs::path out = tree.parent_path() / "out";
  // The new module and the defining file go with the first reader's patch.
  const std::string app1 = slurp(out / "app1.diff");
  EXPECT_NE(app1.find("+++ b/lib/_core_defs.py"), std::string::npos) << app1;
  EXPECT_NE(app1.find("+++ b/lib/core.py"), std::string::npos) << app1;
  EXPECT_FALSE(fs::exists(out / "lib.diff"));
  const std::string app2 = slurp(out / "app2.md");
  EXPECT_NE(app2.find("needs `lib/_core_defs.py`, which the patch for app1 creates: apply that one first"),
            std::string::npos)
      << app2;
  EXPECT_NE(app2.find("It applies after the patch that creates the module it needs"), std::string::npos) << app2;
  EXPECT_NE(slurp(out / "index.md").find("except one whose notes name a patch to apply first"), std::string::npos);
  fs::remove_all(tree.parent_path());
}

TEST(SplitPatchesCli, ByPackageEachAppliesAloneAndTogetherTheyAreTheDiff) {
  fs::path tree = combined_golden_tree("cyclefix_split_pkg/tree");
  CliResult whole = run_main(tree, ".");
  ASSERT_EQ(whole.status, 0) << whole.err;
  ASSERT_EQ(file_diffs(whole.out).size(), 4u) << whole.out;
  fs::path out = tree.parent_path() / "out";
  CliResult split = run_main(tree, ". --split-by package --out-dir ../out");
  ASSERT_EQ(split.status, 0) << split.err;
  EXPECT_TRUE(split.out.find("--- a/") == std::string::npos) << "no diff on stdout with --split-by";
  EXPECT_NE(split.out.find("wrote ../out/exir.diff"), std::string::npos) << split.out;
  for (const char* f : {"exir.diff", "exir.md", "pkg.diff", "shapes.diff", "lint.diff", "index.md"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  expect_patches_compose(tree, out, whole.out, 4);
  std::string md = slurp(out / "exir.md");
  EXPECT_NE(md.find("deferred, so that"), std::string::npos) << md;
  EXPECT_NE(md.find("## Import cycles"), std::string::npos) << md;
  EXPECT_NE(md.find("Statements on this cycle that cannot be deferred"), std::string::npos) << md;
  EXPECT_NE(md.find("exir/capture/_capture.py:"), std::string::npos) << md;
  std::string index = slurp(out / "index.md");
  EXPECT_NE(index.find("split by package"), std::string::npos) << index;
  fs::remove_all(tree.parent_path());
}

TEST(SplitPatchesCli, ByCycleAndByOwner) {
  fs::path tree = combined_golden_tree("cyclefix_split_cycle/tree");
  CliResult whole = run_main(tree, ".");
  ASSERT_EQ(whole.status, 0) << whole.err;
  CliResult split = run_main(tree, ". --split-by cycle --out-dir ../by_cycle");
  ASSERT_EQ(split.status, 0) << split.err;
  expect_patches_compose(tree, tree.parent_path() / "by_cycle", whole.out, 4);
  EXPECT_TRUE(fs::exists(tree.parent_path() / "by_cycle/exir.capture.diff"));

  // Owners: the tree is a repository (.git marks its root) with a CODEOWNERS.
  fs::create_directories(tree / ".git");
  put(tree / ".github/CODEOWNERS", "*.py @org/python\n/exir/ @org/exir\n/lint/config.py @lint-owner\n/pkg/core.py\n");
  split = run_main(tree, ". --split-by owner --out-dir ../by_owner");
  ASSERT_EQ(split.status, 0) << split.err;
  fs::path out = tree.parent_path() / "by_owner";
  for (const char* f : {"org_exir.diff", "lint-owner.diff", "org_python.diff", "unowned.diff"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  EXPECT_NE(slurp(out / "unowned.diff").find("--- a/pkg/core.py"), std::string::npos);
  EXPECT_NE(slurp(out / "index.md").find(".github/CODEOWNERS"), std::string::npos);
  fs::remove_all(tree / ".github");
  expect_patches_compose(tree, out, whole.out, 4);

  // Usage errors: no --out-dir, --apply together with it, no CODEOWNERS for owner.
  EXPECT_EQ(run_main(tree, ". --split-by package").status, 2);
  EXPECT_EQ(run_main(tree, ". --split-by package --out-dir ../x --apply").status, 2);
  EXPECT_EQ(run_main(tree, ". --split-by team --out-dir ../x").status, 2);
  CliResult no_owners = run_main(tree, ". --split-by owner --out-dir ../x");
  EXPECT_EQ(no_owners.status, 2);
  EXPECT_NE(no_owners.err.find("CODEOWNERS"), std::string::npos) << no_owners.err;
  fs::remove_all(tree.parent_path());
}

// ------------------------------------------------------------------ baseline

TEST(Baseline, StatementsAreNormalised) {
  EXPECT_EQ(normalize_statement("from a import (\n    x,  # why\n    y,\n)"), "from a import x, y");
  EXPECT_EQ(normalize_statement("from a import x , y"), "from a import x, y");
  EXPECT_EQ(normalize_statement("import a.b  as  c"), "import a.b as c");
  EXPECT_EQ(normalize_statement("from . import \\\n    sub"), "from . import sub");
  EXPECT_EQ(normalize_statement("from a import x, y"), normalize_statement("from a import (x, y,)"));
}

TEST(Baseline, JsonRoundTripIsSortedAndVersioned) {
  Analysis a = analysis_of({{"p/__init__.py", ""},
                            {"p/b.py", "from p.a import x\ny = 1\n"},
                            {"p/a.py", "import p.b\nx = 1\n"}});
  CycleReport r = build_cycle_report(a, 100);
  Baseline b = make_baseline(a, r);
  ASSERT_EQ(b.cycles.size(), 1u);
  EXPECT_EQ(b.cycles[0].modules, (std::vector<std::string>{"p.a", "p.b"}));
  ASSERT_EQ(b.cycles[0].edges.size(), 2u);
  EXPECT_EQ(b.cycles[0].edges[0], (BaselineEdge{"p.a", "p.b", "import p.b"}));
  nlohmann::json j = baseline_json(b);
  EXPECT_EQ(j["cyclefix_baseline"], 1);
  Baseline back;
  std::string err;
  ASSERT_TRUE(baseline_from_json(j, &back, &err)) << err;
  EXPECT_EQ(back.cycles[0].edges, b.cycles[0].edges);
  j["cyclefix_baseline"] = 99;
  EXPECT_FALSE(baseline_from_json(j, &back, &err));
  EXPECT_NE(err.find("version 99"), std::string::npos) << err;
  EXPECT_FALSE(baseline_from_json(nlohmann::json{{"cycles", 1}}, &back, &err));
  EXPECT_TRUE(compare_with_baseline(a, r, b).new_count() == 0);
}

TEST(BaselineCli, NewCycleFailsKnownPassesLineShiftDoesNot) {
  fs::path dir = fresh_dir("cyclefix_baseline_cli");
  fs::path tree = dir / "tree";
  put(tree / "app/__init__.py", "");
  put(tree / "app/a.py", "from app.b import helper\n\nVALUE = 1\n\ndef run():\n    return helper()\n");
  put(tree / "app/b.py", "from app.a import VALUE\n\ndef helper():\n    return VALUE\n");
  put(tree / "app/c.py", "X = 1\n");
  put(tree / "app/d.py", "Y = 2\n");

  CliResult rec = run_sub(tree, "cycles", ". --write-baseline ../baseline.json");
  ASSERT_EQ(rec.status, 0) << rec.err;
  std::string text = slurp(dir / "baseline.json");
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["cyclefix_baseline"], 1);
  EXPECT_EQ(j["cycles"][0]["modules"], (nlohmann::json{"app.a", "app.b"}));
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find("\"line\""), std::string::npos) << "no line numbers in the baseline";

  // Unchanged: the cycle is known, exit 0 (without the baseline: 1).
  EXPECT_EQ(run_sub(tree, "cycles", ".").status, 1);
  CliResult same = run_sub(tree, "cycles", ". --baseline ../baseline.json");
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("1 known import cycle, 0 new"), std::string::npos) << same.out;

  // Line shift and reformatting: blank lines and a comment at the top, the
  // import put in parentheses over several lines. Still known.
  put(tree / "app/a.py",
      "\n\n\n# moved down\nfrom app.b import (\n    helper,  # used by run\n)\n\nVALUE = 1\n\ndef run():\n"
      "    return helper()\n");
  put(tree / "app/b.py", "\n\n\nfrom app.a import VALUE\n\ndef helper():\n    return VALUE\n");
  CliResult shifted = run_sub(tree, "cycles", ". --baseline ../baseline.json");
  EXPECT_EQ(shifted.status, 0) << shifted.out;

  // A new cycle: exit 1, named as new with the statement that makes it; the old one known.
  put(tree / "app/c.py", "from app.d import Y\nX = 1\n");
  put(tree / "app/d.py", "from app.c import X\nY = 2\n");
  CliResult fresh = run_sub(tree, "cycles", ". --baseline ../baseline.json --json ../report.json");
  EXPECT_EQ(fresh.status, 1) << fresh.out;
  EXPECT_NE(fresh.out.find("1 known import cycle, 1 new"), std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("new: import cycle 2 (app.c, app.d)"), std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("app/c.py:1: from app.d import Y  (app.c -> app.d)"), std::string::npos) << fresh.out;
  nlohmann::json report = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(report["baseline"]["known"], nlohmann::json::array({nlohmann::json{"app.a", "app.b"}}));
  ASSERT_EQ(report["baseline"]["new"].size(), 1u);
  EXPECT_EQ(report["baseline"]["new"][0]["modules"], (nlohmann::json{"app.c", "app.d"}));
  EXPECT_EQ(report["baseline"]["new"][0]["unknown_edges"].size(), 2u);

  // A known cycle that grows a new import: the component is new.
  put(tree / "app/c.py", "X = 1\n");
  put(tree / "app/d.py", "Y = 2\n");
  put(tree / "app/b.py", "\n\n\nfrom app.a import VALUE\nfrom app.a import run\n\ndef helper():\n    return VALUE\n");
  EXPECT_EQ(run_sub(tree, "cycles", ". --baseline ../baseline.json").status, 0)
      << "a second statement on a known edge is not a new cycle";
  put(tree / "app/c.py", "from app.a import VALUE\nX = 1\n");
  put(tree / "app/b.py", "from app.a import VALUE\nimport app.c\n\ndef helper():\n    return VALUE\n");
  CliResult grown = run_sub(tree, "cycles", ". --baseline ../baseline.json");
  EXPECT_EQ(grown.status, 1) << grown.out;

  // The cycle fixed: nothing new, the baseline entry reported gone.
  put(tree / "app/b.py", "def helper():\n    from app.a import VALUE\n    return VALUE\n");
  put(tree / "app/c.py", "X = 1\n");
  CliResult fixed = run_sub(tree, "cycles", ". --baseline ../baseline.json");
  EXPECT_EQ(fixed.status, 0) << fixed.out;
  EXPECT_NE(fixed.out.find("1 baseline cycle no longer present"), std::string::npos) << fixed.out;

  // A missing or broken baseline is a usage error, not "no new cycles".
  EXPECT_EQ(run_sub(tree, "cycles", ". --baseline ../nope.json").status, 2);
  put(dir / "bad.json", "{\"cycles\": []}");
  EXPECT_EQ(run_sub(tree, "cycles", ". --baseline ../bad.json").status, 2);
  EXPECT_EQ(run_sub(tree, "cycles", ". --baseline ../baseline.json --write-baseline ../b2.json").status, 2);
  fs::remove_all(dir);
}

// --------------------------------------------------------------------- SARIF

namespace {

// The parts of the SARIF 2.1.0 schema (sarif-schema-2.1.0.json) that a
// consumer relies on: required properties, their types, enums and minimums.
void expect_valid_sarif(const nlohmann::json& log) {
  ASSERT_TRUE(log.is_object());
  EXPECT_EQ(log.value("version", ""), "2.1.0");
  EXPECT_EQ(log.value("$schema", ""), kSarifSchema);
  ASSERT_TRUE(log.contains("runs") && log["runs"].is_array());
  ASSERT_EQ(log["runs"].size(), 1u);
  const auto& run = log["runs"][0];
  ASSERT_TRUE(run.contains("tool"));
  const auto& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "cyclefix");
  EXPECT_TRUE(driver["version"].is_string());
  ASSERT_TRUE(driver["rules"].is_array());
  std::vector<std::string> rule_ids;
  for (const auto& rule : driver["rules"]) {
    ASSERT_TRUE(rule["id"].is_string());
    rule_ids.push_back(rule["id"]);
    EXPECT_TRUE(rule["shortDescription"]["text"].is_string());
    std::set<std::string> levels = {"none", "note", "warning", "error"};
    EXPECT_TRUE(levels.count(rule["defaultConfiguration"]["level"].get<std::string>()));
  }
  EXPECT_EQ(rule_ids, (std::vector<std::string>{"CF001", "CF002"}));
  ASSERT_TRUE(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].is_string());
  std::string root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"];
  EXPECT_EQ(root.rfind("file:///", 0), 0u) << root;
  EXPECT_EQ(root.back(), '/');
  auto check_location = [&](const nlohmann::json& l) {
    const auto& pl = l["physicalLocation"];
    ASSERT_TRUE(pl["artifactLocation"]["uri"].is_string()) << l.dump();
    std::string uri = pl["artifactLocation"]["uri"];
    EXPECT_FALSE(uri.empty());
    EXPECT_NE(uri.front(), '/') << "relative to %SRCROOT%: " << uri;
    EXPECT_EQ(pl["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    ASSERT_TRUE(pl["region"]["startLine"].is_number_integer()) << l.dump();
    EXPECT_GE(pl["region"]["startLine"].get<int>(), 1);
  };
  ASSERT_TRUE(run["results"].is_array());
  for (const auto& res : run["results"]) {
    ASSERT_TRUE(res["message"]["text"].is_string()) << res.dump();
    EXPECT_FALSE(res["message"]["text"].get<std::string>().empty());
    ASSERT_TRUE(res["ruleId"].is_string());
    int index = res["ruleIndex"];
    EXPECT_EQ(rule_ids.at(static_cast<std::size_t>(index)), res["ruleId"]);
    std::set<std::string> levels = {"none", "note", "warning", "error"};
    EXPECT_TRUE(levels.count(res["level"].get<std::string>()));
    ASSERT_EQ(res["locations"].size(), 1u);
    check_location(res["locations"][0]);
    std::set<int> ids;
    for (const auto& rl : res.value("relatedLocations", nlohmann::json::array())) {
      check_location(rl);
      ASSERT_TRUE(rl["id"].is_number_integer());
      EXPECT_GE(rl["id"].get<int>(), 0);
      EXPECT_TRUE(ids.insert(rl["id"].get<int>()).second) << "ids unique within a result";
      EXPECT_TRUE(rl["message"]["text"].is_string());
    }
    for (const auto& flow : res.value("codeFlows", nlohmann::json::array())) {
      ASSERT_FALSE(flow["threadFlows"].empty());
      for (const auto& tf : flow["threadFlows"]) {
        ASSERT_FALSE(tf["locations"].empty());
        for (const auto& step : tf["locations"]) check_location(step["location"]);
      }
    }
    for (const auto& [k, v] : res["partialFingerprints"].items()) EXPECT_TRUE(v.is_string()) << k;
    if (res.contains("baselineState")) {
      std::set<std::string> states = {"new", "unchanged", "updated", "absent"};
      EXPECT_TRUE(states.count(res["baselineState"].get<std::string>()));
    }
  }
}

// The text of line `line` (1-based) of a file.
std::string line_of(const fs::path& file, int line) {
  std::istringstream in(slurp(file));
  std::string s;
  for (int i = 0; i < line && std::getline(in, s); ++i) {
  }
  return s;
}

}  // namespace

TEST(Sarif, SeedShapeIsValidAndAnchoredAtImports) {
  fs::path src = CYCLEFIX_SOURCE_DIR;
  CliResult r = run_sub(src, "cycles", "golden/seed_shape/input --format sarif");
  ASSERT_EQ(r.status, 1) << r.err;
  nlohmann::json log = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(log.is_discarded()) << r.out;
  expect_valid_sarif(log);
  std::map<std::string, int> per_rule;
  for (const auto& res : log["runs"][0]["results"]) {
    per_rule[res["ruleId"]]++;
    const auto& pl = res["locations"][0]["physicalLocation"];
    std::string uri = pl["artifactLocation"]["uri"];
    EXPECT_EQ(uri.rfind("golden/seed_shape/input/exir/", 0), 0u) << uri;
    std::string text = line_of(src / uri, pl["region"]["startLine"]);
    EXPECT_NE(text.find("import"), std::string::npos) << uri << ": " << text;
    ASSERT_TRUE(pl["region"].contains("snippet"));
    EXPECT_NE(text.find(pl["region"]["snippet"]["text"].get<std::string>()), std::string::npos) << text;
  }
  EXPECT_EQ(per_rule["CF001"], 1);  // one cycle
  EXPECT_GE(per_rule["CF002"], 2);  // verifier and program fail (simulate --entry bare)
  bool verifier = false;
  for (const auto& res : log["runs"][0]["results"])
    if (res["ruleId"] == "CF002" && res["partialFingerprints"]["cyclefixFailure/v1"] == "exir.verification.verifier") {
      verifier = true;
      EXPECT_NE(res["message"]["text"].get<std::string>().find("partially initialized module"), std::string::npos);
      EXPECT_EQ(res["level"], "error");
      EXPECT_FALSE(res["codeFlows"].empty());
    }
  EXPECT_TRUE(verifier);
}

TEST(Sarif, OutputFileBaselineStateAndUsage) {
  fs::path dir = fresh_dir("cyclefix_sarif_cli");
  fs::path tree = dir / "my tree";  // a space: percent-encoded in URIs
  put(tree / "app/__init__.py", "");
  put(tree / "app/a.py", "from app.b import helper\n\nVALUE = 1\n");
  put(tree / "app/b.py", "from app.a import VALUE\n\ndef helper():\n    return VALUE\n");
  put(tree / "app/c.py", "X = 1\n");
  ASSERT_EQ(run_sub(dir, "cycles", "'my tree' --write-baseline base.json").status, 0);
  put(tree / "app/c.py", "from app.b import helper\nX = 1\n");
  put(tree / "app/b.py", "from app.a import VALUE\nimport app.c\n\ndef helper():\n    return VALUE\n");
  CliResult r = run_sub(dir, "cycles", "'my tree' --format sarif --output out.sarif --baseline base.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("import cycle 1"), std::string::npos) << "the text report stays on stdout: " << r.out;
  nlohmann::json log = nlohmann::json::parse(slurp(dir / "out.sarif"), nullptr, false);
  ASSERT_FALSE(log.is_discarded());
  expect_valid_sarif(log);
  bool cycle = false;
  for (const auto& res : log["runs"][0]["results"]) {
    std::string uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    EXPECT_EQ(uri.rfind("my%20tree/app/", 0), 0u) << uri;
    if (res["ruleId"] == "CF001") {
      cycle = true;
      EXPECT_EQ(res["baselineState"], "new");  // the cycle grew an edge
    }
  }
  EXPECT_TRUE(cycle);
  // SARIF and the JSON report cannot both own stdout.
  EXPECT_EQ(run_sub(dir, "cycles", "'my tree' --format sarif --json -").status, 2);
  EXPECT_EQ(run_sub(dir, "cycles", "'my tree' --format xml").status, 2);
  fs::remove_all(dir);
}

TEST(Sarif, UrisArePercentEncoded) {
  EXPECT_EQ(uri_encode_path("a b/c#d.py"), "a%20b/c%23d.py");
  EXPECT_EQ(uri_encode_path("src/pkg/mod_1.py"), "src/pkg/mod_1.py");
  EXPECT_EQ(uri_encode_path("\xc3\xa9.py"), "%C3%A9.py");
}
