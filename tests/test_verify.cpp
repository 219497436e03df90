// Verification with a real interpreter: each module imported first in a fresh
// python3, in normal and bare entry mode, and the generated pytest file.
// Skipped when python3 is not runnable.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shell.hpp"
#include "verify.hpp"

namespace fs = std::filesystem;
using cyclefix::EntryMode;
using cyclefix::ImportOutcome;
using cyclefix::VerifyOptions;
using cyclefix::VerifyResult;

namespace {

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

struct ShellRun {
  int status = -1;
  std::string out;  // stdout and stderr
};

ShellRun run_shell(const std::string& cmd) {
  auto r = cyclefix::testing_support::run_shell(cmd + " 2>&1");
  return {r.status, std::move(r.out)};
}

bool python_runnable() {
  static const bool ok = run_shell("python3 -c pass").status == 0;
  return ok;
}

bool pytest_available() {
  static const bool ok = run_shell("python3 -c 'import pytest'").status == 0;
  return ok;
}

#define REQUIRE_PYTHON() \
  if (!python_runnable()) GTEST_SKIP() << "python3 is not runnable"

// A temporary source root; the name has a space and a quote so that argv
// handling, not shell quoting, is what gets the path to the interpreter.
class TempTree {
 public:
  TempTree() {
    std::string tmpl = (fs::path(testing::TempDir()) / "cyclefix verify 'XXXXXX").string();
    const char* made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr);
    root_ = made ? fs::path(made) : fs::path(testing::TempDir());
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  const fs::path& root() const { return root_; }
  std::string str() const { return root_.string(); }

 private:
  fs::path root_;
};

VerifyResult verify_one(const TempTree& t, const std::string& module, EntryMode mode = EntryMode::Normal,
                        double timeout_s = 30) {
  VerifyOptions o;
  o.mode = mode;
  o.timeout_s = timeout_s;
  auto r = cyclefix::verify_modules({module}, {t.str()}, o);
  EXPECT_EQ(r.size(), 1u);
  return r.empty() ? VerifyResult{} : r[0];
}

std::string describe(const VerifyResult& r) {
  return r.module + ": " + std::string(cyclefix::to_string(r.outcome)) + " " + r.error_type + ": " + r.message;
}

// The two-module cycle: importing either one first fails.
void write_ab_cycle(const TempTree& t, const std::string& dir = "") {
  t.write(dir + "a.py", "from b import B\nA = 1\n");
  t.write(dir + "b.py", "from a import A\nB = 1\n");
}

}  // namespace

TEST(Verify, Strings) {
  EXPECT_EQ(cyclefix::to_string(ImportOutcome::Ok), "ok");
  EXPECT_EQ(cyclefix::to_string(ImportOutcome::Circular), "circular");
  EXPECT_EQ(cyclefix::to_string(ImportOutcome::Other), "other");
  EXPECT_EQ(cyclefix::parse_entry_mode("normal"), EntryMode::Normal);
  EXPECT_EQ(cyclefix::parse_entry_mode("bare"), EntryMode::Bare);
  EXPECT_EQ(cyclefix::parse_entry_mode("lazy"), EntryMode::Lazy);  // PEP 810, -X lazy_imports=all
  EXPECT_FALSE(cyclefix::parse_entry_mode("eager").has_value());
  // The pytest file embeds the child program in r'''...'''.
  EXPECT_EQ(cyclefix::verify_child_code().find("'''"), std::string_view::npos);
}

TEST(Verify, OkModule) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("pkg/__init__.py", "from .m import X\n");
  t.write("pkg/m.py", "import json\nX = json.dumps(1)\n");
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    auto r = verify_one(t, "pkg.m", mode);
    EXPECT_EQ(r.outcome, ImportOutcome::Ok) << describe(r);
    EXPECT_EQ(r.error_type, "");
    EXPECT_EQ(r.message, "");
  }
  EXPECT_EQ(verify_one(t, "pkg").outcome, ImportOutcome::Ok);
  // Nothing written into the tree.
  for (const auto& e : fs::recursive_directory_iterator(t.root()))
    EXPECT_NE(e.path().filename(), "__pycache__") << e.path();
}

TEST(Verify, CircularInNormalMode) {
  REQUIRE_PYTHON();
  TempTree t;
  write_ab_cycle(t);
  for (const char* m : {"a", "b"}) {
    auto r = verify_one(t, m);
    EXPECT_EQ(r.outcome, ImportOutcome::Circular) << describe(r);
    EXPECT_EQ(r.error_type, "ImportError");
    EXPECT_NE(r.message.find("partially initialized module"), std::string::npos) << r.message;
  }
}

TEST(Verify, AttributeOfPartiallyInitialisedModuleIsCircular) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("p/__init__.py", "");
  t.write("p/x.py", "from p import y\nV = 1\n");
  t.write("p/y.py", "from p import x\nW = x.V\n");
  auto r = verify_one(t, "p.x");
  EXPECT_EQ(r.outcome, ImportOutcome::Circular) << describe(r);
  EXPECT_EQ(r.error_type, "AttributeError");
}

TEST(Verify, SeedShape) {
  REQUIRE_PYTHON();
  const std::string root = std::string(CYCLEFIX_SOURCE_DIR) + "/golden/seed_shape/input";
  const std::vector<std::string> modules = {
      "exir", "exir.capture", "exir.capture._capture", "exir.capture._config",
      "exir.program", "exir.program._program", "exir.verification", "exir.verification.verifier"};
  VerifyOptions o;
  auto normal = cyclefix::verify_modules(modules, {root}, o);
  ASSERT_EQ(normal.size(), modules.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    EXPECT_EQ(normal[i].module, modules[i]);
    EXPECT_EQ(normal[i].outcome, ImportOutcome::Ok) << describe(normal[i]);
  }

  o.mode = EntryMode::Bare;
  auto bare = cyclefix::verify_modules(modules, {root}, o);
  ASSERT_EQ(bare.size(), modules.size());
  for (const auto& r : bare) {
    if (r.module == "exir.verification.verifier") {
      EXPECT_EQ(r.outcome, ImportOutcome::Circular) << describe(r);
      EXPECT_NE(r.message.find("partially initialized module 'exir.verification.verifier'"), std::string::npos)
          << r.message;
    } else if (r.module == "exir.program") {
      EXPECT_EQ(r.outcome, ImportOutcome::Circular) << describe(r);
      EXPECT_NE(r.message.find("'ExirExportedProgram' from partially initialized module 'exir.program'"),
                std::string::npos)
          << r.message;
    } else if (r.module == "exir.program._program") {
      // exir.program is a bare stub here: its __init__ never runs, so _capture's
      // `from exir.program import ExirExportedProgram` cannot succeed. It fails,
      // but not with the circular wording (the package is not mid-load).
      EXPECT_EQ(r.outcome, ImportOutcome::Other) << describe(r);
      EXPECT_EQ(r.error_type, "ImportError");
      EXPECT_NE(r.message.find("cannot import name 'ExirExportedProgram' from 'exir.program'"), std::string::npos)
          << r.message;
    } else {
      EXPECT_EQ(r.outcome, ImportOutcome::Ok) << describe(r);
    }
  }
  // Nothing written into the source tree.
  for (const auto& e : fs::recursive_directory_iterator(root))
    EXPECT_NE(e.path().filename(), "__pycache__") << e.path();
}

TEST(Verify, BareModeSkipsAncestorBodies) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("pkg/__init__.py", "raise RuntimeError('package body ran')\n");
  t.write("pkg/sub/__init__.py", "raise RuntimeError('subpackage body ran')\n");
  t.write("pkg/sub/leaf.py", "import pkg, pkg.sub\nassert pkg.sub is not None\nV = 1\n");
  t.write("ns/inner/mod.py", "V = 2\n");  // PEP 420 namespace packages: no __init__.py at all
  auto normal = verify_one(t, "pkg.sub.leaf", EntryMode::Normal);
  EXPECT_EQ(normal.outcome, ImportOutcome::Other) << describe(normal);
  EXPECT_EQ(normal.error_type, "RuntimeError");
  EXPECT_EQ(normal.message, "package body ran");
  auto bare = verify_one(t, "pkg.sub.leaf", EntryMode::Bare);
  EXPECT_EQ(bare.outcome, ImportOutcome::Ok) << describe(bare);
  // The module itself still runs in bare mode, even when it is a package.
  auto sub = verify_one(t, "pkg.sub", EntryMode::Bare);
  EXPECT_EQ(sub.outcome, ImportOutcome::Other) << describe(sub);
  EXPECT_EQ(sub.message, "subpackage body ran");
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    auto r = verify_one(t, "ns.inner.mod", mode);
    EXPECT_EQ(r.outcome, ImportOutcome::Ok) << describe(r);
  }
  auto missing = verify_one(t, "pkg.nope.leaf", EntryMode::Bare);
  EXPECT_EQ(missing.outcome, ImportOutcome::Other) << describe(missing);
  EXPECT_EQ(missing.error_type, "ModuleNotFoundError");
}

TEST(Verify, MissingThirdPartyIsOther) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("m.py", "import cyclefix_definitely_not_installed_pkg\n");
  auto r = verify_one(t, "m");
  EXPECT_EQ(r.outcome, ImportOutcome::Other) << describe(r);
  EXPECT_EQ(r.error_type, "ModuleNotFoundError");
  EXPECT_NE(r.message.find("cyclefix_definitely_not_installed_pkg"), std::string::npos) << r.message;
}

TEST(Verify, ModuleOutputDoesNotConfuseTheResult) {
  REQUIRE_PYTHON();
  TempTree t;
  const std::string noise =
      "import os, sys\n"
      "print('{\"outcome\": \"ok\", \"error_type\": \"\", \"message\": \"\"}')\n"
      "print('noise on stderr', file=sys.stderr)\n"
      "sys.stdout.write('no newline')\n"
      "os.write(1, b'raw fd 1\\n')\n"
      "os.write(2, b'raw fd 2\\n')\n";
  t.write("a.py", noise + "from b import B\nA = 1\n");
  t.write("b.py", noise + "from a import A\nB = 1\n");
  t.write("loud.py", noise + "print('x' * 200000)\nV = 1\n");
  auto r = verify_one(t, "a");
  EXPECT_EQ(r.outcome, ImportOutcome::Circular) << describe(r);
  auto loud = verify_one(t, "loud");
  EXPECT_EQ(loud.outcome, ImportOutcome::Ok) << describe(loud);
}

TEST(Verify, SystemExitIsOther) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("quits.py", "import sys\nsys.exit(3)\n");
  t.write("dies.py", "import os\nos._exit(4)\n");
  t.write("bad.py", "def f(:\n    pass\n");
  auto r = verify_one(t, "quits");
  EXPECT_EQ(r.outcome, ImportOutcome::Other) << describe(r);
  EXPECT_EQ(r.error_type, "SystemExit");
  EXPECT_EQ(r.message, "3");
  auto d = verify_one(t, "dies");
  EXPECT_EQ(d.outcome, ImportOutcome::Other) << describe(d);
  EXPECT_EQ(d.error_type, "InterpreterExit");
  EXPECT_NE(d.message.find("status 4"), std::string::npos) << d.message;
  auto s = verify_one(t, "bad");
  EXPECT_EQ(s.outcome, ImportOutcome::Other) << describe(s);
  EXPECT_EQ(s.error_type, "SyntaxError");
}

TEST(Verify, MessagesSurviveAnyText) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("odd.py", "raise RuntimeError('na\\u00efve \\U0001F600 \\\\ \"q\" \\t\\udc80')\n");
  auto r = verify_one(t, "odd");
  EXPECT_EQ(r.outcome, ImportOutcome::Other) << describe(r);
  EXPECT_EQ(r.error_type, "RuntimeError");
  EXPECT_EQ(r.message, "na\u00efve \U0001F600 \\ \"q\" \t\uFFFD");
}

TEST(Verify, TimeoutIsOther) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("slow.py", "import time\ntime.sleep(60)\n");
  // A child it started must not keep the pipe open past the kill.
  t.write("slow_child.py", "import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\nimport time\ntime.sleep(60)\n");
  auto start = std::chrono::steady_clock::now();
  VerifyOptions o;
  o.timeout_s = 0.5;
  auto rs = cyclefix::verify_modules({"slow", "slow_child"}, {t.str()}, o);
  auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& r : rs) {
    EXPECT_EQ(r.outcome, ImportOutcome::Other) << describe(r);
    EXPECT_EQ(r.error_type, "Timeout");
    EXPECT_EQ(r.message, "timed out after 0.5 s");
  }
  EXPECT_LT(elapsed, 20.0);
}

TEST(Verify, ThreadsStartedAtImportDoNotHangIt) {
  REQUIRE_PYTHON();
  TempTree t;
  t.write("spins.py", "import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n");
  auto start = std::chrono::steady_clock::now();
  auto r = verify_one(t, "spins", EntryMode::Normal, 20);
  auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.outcome, ImportOutcome::Ok) << describe(r);
  EXPECT_LT(elapsed, 10.0);
}

TEST(Verify, ParallelResultsKeepInputOrder) {
  REQUIRE_PYTHON();
  TempTree t;
  write_ab_cycle(t);
  std::vector<std::string> modules;
  for (int i = 0; i < 12; ++i) {
    std::string m = "ok" + std::to_string(i);
    t.write(m + ".py", "V = " + std::to_string(i) + "\n");
    modules.push_back(m);
    if (i % 4 == 0) modules.push_back(i % 8 == 0 ? "a" : "b");
  }
  VerifyOptions o;
  o.jobs = 4;
  auto rs = cyclefix::verify_modules(modules, {t.str()}, o);
  ASSERT_EQ(rs.size(), modules.size());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].module, modules[i]);
    bool cyclic = modules[i] == "a" || modules[i] == "b";
    EXPECT_EQ(rs[i].outcome, cyclic ? ImportOutcome::Circular : ImportOutcome::Ok) << describe(rs[i]);
  }
  EXPECT_TRUE(cyclefix::verify_modules({}, {t.str()}, o).empty());
}

TEST(Verify, CurrentDirectoryAndPythonpathAreNotOnThePath) {
  REQUIRE_PYTHON();
  TempTree t, other;
  other.write("only_elsewhere.py", "V = 1\n");
  ::setenv("PYTHONPATH", other.str().c_str(), 1);
  auto r = verify_one(t, "only_elsewhere");
  ::unsetenv("PYTHONPATH");
  EXPECT_EQ(r.outcome, ImportOutcome::Other) << describe(r);
  EXPECT_EQ(r.error_type, "ModuleNotFoundError");
}

TEST(Verify, MissingInterpreterIsOther) {
  TempTree t;
  VerifyOptions o;
  o.python = "/nonexistent/cyclefix/python3";
  auto rs = cyclefix::verify_modules({"m"}, {t.str()}, o);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, ImportOutcome::Other);
  EXPECT_EQ(rs[0].error_type, "SpawnError");
  EXPECT_NE(rs[0].message.find("/nonexistent/cyclefix/python3"), std::string::npos) << rs[0].message;
}

TEST(Verify, Json) {
  std::vector<VerifyResult> rs = {{"a", ImportOutcome::Ok, "", ""},
                                  {"b", ImportOutcome::Circular, "ImportError", "partially initialized module 'b'"},
                                  {"c", ImportOutcome::Other, "ModuleNotFoundError", "No module named 'x'"},
                                  {"d", ImportOutcome::Circular, "AttributeError", "..."}};
  VerifyOptions o;
  o.mode = EntryMode::Bare;
  auto j = cyclefix::verify_json(rs, o);
  EXPECT_EQ(j["entry_mode"], "bare");
  EXPECT_EQ(j["python"], "python3");
  ASSERT_EQ(j["results"].size(), 4u);
  EXPECT_EQ(j["results"][1]["module"], "b");
  EXPECT_EQ(j["results"][1]["outcome"], "circular");
  EXPECT_EQ(j["results"][1]["error_type"], "ImportError");
  EXPECT_EQ(j["results"][2]["message"], "No module named 'x'");
  EXPECT_EQ(j["counts"]["ok"], 1);
  EXPECT_EQ(j["counts"]["circular"], 2);
  EXPECT_EQ(j["counts"]["other"], 1);
}

namespace {

// project/src holds the packages; the pytest file goes to project/tests.
struct PytestProject {
  TempTree t;
  fs::path file;
  std::string text;
  PytestProject(const std::vector<std::string>& modules) {
    fs::create_directories(t.root() / "tests");
    file = t.root() / "tests" / "test_import_cycles.py";
    cyclefix::PytestFileOptions po;
    po.file_dir = file.parent_path();
    text = cyclefix::pytest_file(modules, {(t.root() / "src").string()}, po);
    std::ofstream(file) << text;
  }
  ShellRun run(const std::string& runner) const {
    return run_shell("cd " + shell_quote(t.str()) + " && PYTHONDONTWRITEBYTECODE=1 " + runner + " " +
                     shell_quote(file.string()));
  }
};

void write_clean(const TempTree& t) {
  t.write("src/pkg/__init__.py", "from .a import A\n");
  t.write("src/pkg/a.py", "from pkg.b import B\nA = B + 1\n");
  t.write("src/pkg/b.py", "B = 1\n");
  t.write("src/pkg/needs_dep.py", "import cyclefix_definitely_not_installed_pkg\n");
}

void write_cyclic(const TempTree& t) {
  write_clean(t);
  // Hidden in normal mode (pkg/__init__ loads a first), fails bare via c.
  t.write("src/pkg/__init__.py", "from .a import A\n");
  t.write("src/pkg/a.py", "from pkg.b import B\nA = B + 1\nfrom pkg.c import C\n");
  t.write("src/pkg/c.py", "from pkg.a import A\nC = A\n");
}

}  // namespace

TEST(VerifyPytestFile, RootsRelativeToTheFile) {
  PytestProject p({"pkg", "pkg.a"});
  EXPECT_NE(p.text.find("    \"../src\",\n"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("    \"pkg.a\",\n"), std::string::npos);
  EXPECT_EQ(p.text.find(p.t.str()), std::string::npos) << "absolute root leaked into the file";
  // Given as is when no directory is given; a root elsewhere stays absolute.
  auto as_given = cyclefix::pytest_file({"m"}, {"../src"});
  EXPECT_NE(as_given.find("    \"../src\",\n"), std::string::npos);
  cyclefix::PytestFileOptions po;
  po.file_dir = p.file.parent_path();
  auto elsewhere = cyclefix::pytest_file({"m"}, {"/usr/lib/python3/dist-packages"}, po);
  if (p.t.root().begin() != p.t.root().end() && *std::next(p.t.root().begin()) != "usr")
    EXPECT_NE(elsewhere.find("\"/usr/lib/python3/dist-packages\""), std::string::npos) << elsewhere;
}

TEST(VerifyPytestFile, RunsAsAScript) {
  REQUIRE_PYTHON();
  {
    PytestProject p({"pkg", "pkg.a", "pkg.b", "pkg.needs_dep"});
    write_clean(p.t);
    auto r = p.run("python3");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("6 passed, 0 failed, 2 skipped"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("SKIPPED pkg.needs_dep (normal entry): ModuleNotFoundError"), std::string::npos) << r.out;
  }
  {
    PytestProject p({"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.needs_dep"});
    write_cyclic(p.t);
    auto r = p.run("python3");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("FAILED circular import: pkg.c (bare entry): ImportError: cannot import name 'C' "
                         "from partially initialized module 'pkg.c'"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("(normal entry): ImportError"), std::string::npos) << r.out;
  }
}

TEST(VerifyPytestFile, PassesAndFailsUnderPytest) {
  REQUIRE_PYTHON();
  if (!pytest_available()) GTEST_SKIP() << "pytest is not installed for python3 (python3 -c 'import pytest' fails)";
  {
    PytestProject p({"pkg", "pkg.a", "pkg.b", "pkg.needs_dep"});
    write_clean(p.t);
    auto r = p.run("python3 -m pytest -q -rs -p no:cacheprovider");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("6 passed, 2 skipped"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cyclefix_definitely_not_installed_pkg"), std::string::npos) << r.out;
  }
  {
    PytestProject p({"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.needs_dep"});
    write_cyclic(p.t);
    auto r = p.run("python3 -m pytest -q -rs -p no:cacheprovider");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("test_no_circular_import[pkg.c-bare]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("circular import: pkg.c (bare entry)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 failed"), std::string::npos) << r.out;
  }
}

namespace {

// One module per behaviour the two isolations must report alike.
void write_isolation_fixtures(const TempTree& t) {
  write_ab_cycle(t);
  t.write("p/__init__.py", "");
  t.write("p/x.py", "from p import y\nV = 1\n");
  t.write("p/y.py", "from p import x\nW = x.V\n");
  t.write("pkg/__init__.py", "raise RuntimeError('package body ran')\n");
  t.write("pkg/leaf.py", "import json\nV = json.dumps(1)\n");
  t.write("needs_dep.py", "import cyclefix_definitely_not_installed_pkg\n");
  t.write("quits.py", "import sys\nsys.exit(3)\n");
  t.write("dies.py", "import os\nos._exit(4)\n");
  t.write("bad.py", "def f(:\n    pass\n");
  t.write("slow_child.py", "import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\nimport time\ntime.sleep(60)\n");
  t.write("spins.py", "import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n");
  t.write("loud.py", "import os, sys\nprint('{\"outcome\": \"circular\"}')\nprint('x' * 200000)\nos.write(1, b'raw\\n')\n"
                     "print('err', file=sys.stderr)\n");
  // What a module sees of the interpreter it is imported in: a forked child
  // must look like a fresh `python -c` (hash-seed-dependent values left out).
  t.write("probe.py",
          "import os, sys, __main__\n"
          "raise RuntimeError(repr((sorted(sys.modules), sorted(vars(__main__)), sys.argv, sys.path[0],\n"
          "    os.getpgid(0) == os.getpid(), os.isatty(0), os.read(0, 10), sys.stdout.line_buffering,\n"
          "    sys.stdin.fileno(), sys.flags.safe_path, sys.dont_write_bytecode == (sys.pycache_prefix is None))))\n");
}

// slow_child is imported on its own with a short timeout: the others get the
// default one, so that a loaded machine does not turn them into timeouts.
const std::vector<std::string> kIsolationModules = {"a",    "b",   "p.x",   "pkg.leaf", "pkg",  "needs_dep",
                                                    "quits", "dies", "bad", "spins",    "loud", "probe"};

void expect_same(const std::vector<VerifyResult>& expected, const std::vector<VerifyResult>& actual,
                 const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].module, actual[i].module) << what;
    EXPECT_EQ(expected[i].outcome, actual[i].outcome) << what << ": " << describe(expected[i]) << " vs "
                                                      << describe(actual[i]);
    EXPECT_EQ(expected[i].error_type, actual[i].error_type) << what << ": " << expected[i].module;
    EXPECT_EQ(expected[i].message, actual[i].message) << what << ": " << expected[i].module;
  }
}

void expect_no_pycache(const fs::path& root) {
  for (const auto& e : fs::recursive_directory_iterator(root))
    EXPECT_NE(e.path().filename(), "__pycache__") << e.path();
}

}  // namespace

TEST(Verify, ForkAndProcessGiveTheSameResults) {
  REQUIRE_PYTHON();
  TempTree t;
  write_isolation_fixtures(t);
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    VerifyOptions base;
    base.mode = mode;
    base.jobs = 2;
    base.isolation = cyclefix::Isolation::Process;
    base.bytecode_cache = false;  // the behaviour before fork servers and caches
    std::vector<std::string> notes;
    base.note = [&](const std::string& n) { notes.push_back(n); };
    VerifyOptions quick = base;
    quick.timeout_s = 1;
    auto expected = cyclefix::verify_modules(kIsolationModules, {t.str()}, base);
    auto expected_slow = cyclefix::verify_modules({"slow_child"}, {t.str()}, quick);
    ASSERT_EQ(expected.size(), kIsolationModules.size());
    ASSERT_EQ(expected_slow.size(), 1u);
    EXPECT_EQ(expected[0].outcome, ImportOutcome::Circular) << describe(expected[0]);
    EXPECT_EQ(expected_slow[0].error_type, "Timeout") << describe(expected_slow[0]);
    EXPECT_EQ(expected[9].outcome, ImportOutcome::Ok) << describe(expected[9]);
    EXPECT_EQ(expected[11].error_type, "RuntimeError") << describe(expected[11]);
    for (auto isolation : {cyclefix::Isolation::Fork, cyclefix::Isolation::Process})
      for (bool cache : {true, false}) {
        const std::string what = std::string(cyclefix::to_string(mode)) +
                                 (isolation == cyclefix::Isolation::Fork ? " fork" : " process") +
                                 (cache ? " cache" : "");
        VerifyOptions o = base;
        o.isolation = isolation;
        o.bytecode_cache = cache;
        expect_same(expected, cyclefix::verify_modules(kIsolationModules, {t.str()}, o), what);
        o.timeout_s = quick.timeout_s;
        expect_same(expected_slow, cyclefix::verify_modules({"slow_child"}, {t.str()}, o), what);
      }
    EXPECT_TRUE(notes.empty()) << notes.front();
  }
  expect_no_pycache(t.root());
}

TEST(Verify, BytecodeCacheIsPrivateAndRemoved) {
  REQUIRE_PYTHON();
  TempTree t, tmp;
  t.write("pkg/__init__.py", "");
  t.write("pkg/shared.py", "V = 1\n");
  t.write("pkg/where.py", "import pkg.shared\nraise RuntimeError(pkg.shared.__cached__)\n");
  t.write("pkg/slow.py", "import pkg.shared, time\ntime.sleep(60)\n");
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir ? old_tmpdir : "";
  ::setenv("TMPDIR", tmp.str().c_str(), 1);
  {
    // Left by runs killed by a signal: removed when their process is gone.
    const fs::path stale = tmp.root() / "cyclefix-pycache-2147480000-abcdef";
    const fs::path live = tmp.root() / ("cyclefix-pycache-" + std::to_string(::getppid()) + "-abcdef");
    fs::create_directories(stale / "usr");
    fs::create_directories(live);
    VerifyOptions o;
    cyclefix::verify_modules({"pkg.shared"}, {t.str()}, o);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(live));
    fs::remove_all(live);
  }
  for (auto isolation : {cyclefix::Isolation::Fork, cyclefix::Isolation::Process}) {
    VerifyOptions o;
    o.isolation = isolation;
    auto rs = cyclefix::verify_modules({"pkg.where", "pkg.where"}, {t.str()}, o);
    ASSERT_EQ(rs.size(), 2u);
    // Compiled into the run's own directory under TMPDIR, not next to the source.
    EXPECT_EQ(rs[0].message.rfind((tmp.root() / "cyclefix-pycache-").string(), 0), 0u) << rs[0].message;
    EXPECT_EQ(rs[0].message, rs[1].message);
    EXPECT_FALSE(fs::exists(rs[0].message)) << "left behind: " << rs[0].message;
    EXPECT_TRUE(fs::is_empty(tmp.root())) << "the cache directory outlived the run";
    o.timeout_s = 1;  // and after a run whose module was killed
    auto slow = cyclefix::verify_modules({"pkg.slow"}, {t.str()}, o);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow[0].error_type, "Timeout") << describe(slow[0]);
    EXPECT_TRUE(fs::is_empty(tmp.root())) << "the cache directory outlived a timed-out run";
    o.timeout_s = 30;
    o.bytecode_cache = false;
    auto off = cyclefix::verify_modules({"pkg.where"}, {t.str()}, o);
    ASSERT_EQ(off.size(), 1u);
    EXPECT_NE(off[0].message.find("__pycache__"), std::string::npos) << off[0].message;  // would be, if written
    EXPECT_TRUE(fs::is_empty(tmp.root()));
  }
  if (old_tmpdir)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  expect_no_pycache(t.root());
}

TEST(Verify, FallsBackToProcessesWhenTheForkServerCannotRun) {
  REQUIRE_PYTHON();
  TempTree t;
  write_isolation_fixtures(t);
  // An interpreter that runs modules but not the server (a wrapper that resolves
  // to itself, so cyclefix cannot see past it).
  t.write("bin/python", "#!/bin/sh\ncase \"$2\" in\n  *cyclefix-fork-server*) echo 'no fork server here' >&2; exit 3;;\n"
                        "  *sys.executable*) echo \"$0\"; exit 0;;\nesac\nexec python3 \"$@\"\n");
  fs::permissions(t.root() / "bin/python", fs::perms::owner_all);
  VerifyOptions o;
  o.jobs = 2;
  o.isolation = cyclefix::Isolation::Process;
  const std::vector<std::string> modules = {"a", "p.x", "quits", "dies", "loud", "probe"};
  auto expected = cyclefix::verify_modules(modules, {t.str()}, o);
  o.isolation = cyclefix::Isolation::Fork;
  o.python = (t.root() / "bin/python").string();
  std::vector<std::string> notes;
  o.note = [&](const std::string& n) { notes.push_back(n); };
  expect_same(expected, cyclefix::verify_modules(modules, {t.str()}, o), "wrapper");
  ASSERT_EQ(notes.size(), 1u);  // once, not once per worker
  EXPECT_NE(notes[0].find("did not start (it exited at start-up: no fork server here)"), std::string::npos)
      << notes[0];

  // A server that dies mid-run: the module being imported and the rest go to
  // fresh interpreters.
  t.write("killer.py",
          "import os, signal\n"
          "with open('/proc/%d/cmdline' % os.getppid(), 'rb') as f:\n"
          "    if b'cyclefix-fork-server' in f.read():\n"
          "        os.kill(os.getppid(), signal.SIGKILL)\n"
          "V = 1\n");
  std::vector<std::string> with_killer = modules;
  with_killer.insert(with_killer.begin() + 2, "killer");
  o.python = "python3";
  o.isolation = cyclefix::Isolation::Process;
  o.jobs = 1;
  expected = cyclefix::verify_modules(with_killer, {t.str()}, o);
  EXPECT_EQ(expected[2].outcome, ImportOutcome::Ok) << describe(expected[2]);
  notes.clear();
  o.isolation = cyclefix::Isolation::Fork;
  expect_same(expected, cyclefix::verify_modules(with_killer, {t.str()}, o), "killed server");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("a fork server stopped"), std::string::npos) << notes[0];
  expect_no_pycache(t.root());
}

// A module under a package is forked from a zygote that imported the package
// (and each package between): it must see what a fresh interpreter sees at
// that point, and the package's own import must count against its time limit.
TEST(Verify, ModulesForkedFromWarmPackagesSeeAFreshInterpretersState) {
  REQUIRE_PYTHON();
  TempTree t;
  // The package records each run of its body; it changes interpreter state
  // that the modules below it then read.
  t.write("w/__init__.py",
          "import os, sys\n"
          "with open(os.path.join(os.path.dirname(__file__), '..', 'runs.txt'), 'a') as f:\n"
          "    f.write('w\\n')\n"
          "sys.argv.append('w-ran')\n"
          "STATE = [1]\n");
  t.write("w/inner/__init__.py", "import w\nw.STATE.append(2)\n");
  t.write("w/inner/probe.py",
          "import os, sys, __main__, w\n"
          "raise RuntimeError(repr((sorted(sys.modules), sorted(vars(__main__)), sys.argv, sys.path[0], w.STATE,\n"
          "    os.getpgid(0) == os.getpid(), os.isatty(0), os.read(0, 10), sys.stdin.fileno(),\n"
          "    sys.flags.safe_path)))\n");
  t.write("w/inner/ok.py", "from w import STATE\n");
  t.write("w/broken/__init__.py", "raise ValueError('inner package body failed')\n");
  t.write("w/broken/leaf.py", "V = 1\n");
  t.write("w/later.py", "import w.inner\nV = w.STATE\n");
  // A thread does not survive fork: modules under this package are imported
  // from clean children, where the thread runs as in a fresh interpreter.
  t.write("th/__init__.py", "import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n");
  t.write("th/count.py", "import threading\nraise RuntimeError(threading.active_count())\n");
  // The package's own time: 2 s of a 3 s limit.
  t.write("slow/__init__.py", "import time\ntime.sleep(2)\n");
  t.write("slow/a.py", "import time\ntime.sleep(1.5)\n");
  t.write("slow/b.py", "import time\ntime.sleep(1.5)\n");
  t.write("slow/c.py", "V = 1\n");
  // Kills the zygote it was forked from (or the server): the rest goes to fresh interpreters.
  t.write("w/zkill.py",
          "import os, signal\n"
          "with open('/proc/%d/cmdline' % os.getppid(), 'rb') as f:\n"
          "    if b'cyclefix-fork-server' in f.read():\n"
          "        os.kill(os.getppid(), signal.SIGKILL)\n"
          "V = 1\n");
  const std::vector<std::string> modules = {"w.broken.leaf", "w.inner.ok", "w.inner.probe", "w.later",
                                            "th.count",      "slow.a",     "slow.b",        "slow.c"};
  VerifyOptions o;
  o.jobs = 1;
  o.timeout_s = 3;
  o.isolation = cyclefix::Isolation::Process;
  auto expected = cyclefix::verify_modules(modules, {t.str()}, o);
  ASSERT_EQ(expected.size(), modules.size());
  EXPECT_EQ(expected[0].error_type, "ValueError") << describe(expected[0]);
  EXPECT_EQ(expected[1].outcome, ImportOutcome::Ok) << describe(expected[1]);
  EXPECT_NE(expected[2].message.find("'w-ran'"), std::string::npos) << describe(expected[2]);
  EXPECT_NE(expected[2].message.find("[1, 2]"), std::string::npos) << describe(expected[2]);
  EXPECT_EQ(expected[4].message, "2") << describe(expected[4]);
  EXPECT_EQ(expected[5].error_type, "Timeout") << describe(expected[5]);
  EXPECT_EQ(expected[6].error_type, "Timeout") << describe(expected[6]);
  EXPECT_EQ(expected[7].outcome, ImportOutcome::Ok) << describe(expected[7]);
  fs::remove(t.root() / "runs.txt");

  std::vector<std::string> notes;
  o.note = [&](const std::string& n) { notes.push_back(n); };
  o.isolation = cyclefix::Isolation::Fork;
  expect_same(expected, cyclefix::verify_modules(modules, {t.str()}, o), "fork");
  EXPECT_TRUE(notes.empty()) << notes.front();
  // The package body ran once, in the zygote, for its four modules.
  std::ifstream runs(t.root() / "runs.txt");
  std::string all((std::istreambuf_iterator<char>(runs)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "w\n");

  std::vector<std::string> with_kill = {"w.inner.ok", "w.zkill", "w.later", "w.inner.probe"};
  o.isolation = cyclefix::Isolation::Process;
  expected = cyclefix::verify_modules(with_kill, {t.str()}, o);
  EXPECT_EQ(expected[1].outcome, ImportOutcome::Ok) << describe(expected[1]);
  o.isolation = cyclefix::Isolation::Fork;
  expect_same(expected, cyclefix::verify_modules(with_kill, {t.str()}, o), "killed zygote");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("a fork server stopped"), std::string::npos) << notes[0];
  expect_no_pycache(t.root());
}
