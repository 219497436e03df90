// The import-order simulator on in-memory packages. Each expectation was
// checked against CPython 3.11 by importing the same tree in a fresh interpreter.

#include <gtest/gtest.h>

#include <limits>

#include "in_memory.hpp"
#include "simulator.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;
using cyclefix::testing_support::entry;

namespace {

}  // namespace

TEST(Simulator, FromImportOfNameDefinedLaterFails) {
  auto a = analysis_of({{"a.py", "from b import B\nA = 1\n"}, {"b.py", "from a import A\nB = 2\n"}});
  auto r = simulate(a, EntryMode::Normal);
  const auto& ea = entry(a, r, "a");
  EXPECT_TRUE(ea.fails);
  EXPECT_TRUE(ea.circular);
  EXPECT_EQ(ea.error, "ImportError");
  EXPECT_EQ(ea.message,
            "cannot import name 'A' from partially initialized module 'a' (most likely due to a "
            "circular import) (a.py)");
  ASSERT_EQ(ea.chain.size(), 2u);
  EXPECT_EQ(ea.chain[0].line, 1);  // a.py:1 imports b
  EXPECT_EQ(ea.chain[1].line, 1);  // b.py:1 fails
  EXPECT_TRUE(entry(a, r, "b").fails);
}

TEST(Simulator, NameBoundBeforeTheCycleSucceeds) {
  auto a = analysis_of({{"a.py", "A = 1\nfrom b import B\n"}, {"b.py", "from a import A\nB = 2\n"}});
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_FALSE(entry(a, r, "a").fails);
  EXPECT_TRUE(entry(a, r, "b").fails);  // b first: a runs, needs B before b bound it
}

// The seed's trap (b): a cycle made only of `import a.b as c` and `from . import sub`
// with deferred uses is harmless.
TEST(Simulator, ModuleImportCyclesWithDeferredUsesAreHarmless) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/x.py", "import p.y as y\ndef f():\n    return y.g()\n"},
      {"p/y.py", "from . import x\ndef g():\n    return x.f\n"},
  });
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) {
    auto r = simulate(a, m);
    EXPECT_EQ(r.failing(), 0u) << to_string(m);
  }
  // The graph still has the cycle; it just never fails.
  EXPECT_NE(a.graph.find(*a.modules.find("p.x"), *a.modules.find("p.y")), nullptr);
}

TEST(Simulator, AttributeOfPartialModuleAtImportTime) {
  auto a = analysis_of({
      {"a.py", "import b\nX = 1\n"},
      {"b.py", "import a\nY = a.X\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  const auto& ea = entry(a, r, "a");
  EXPECT_TRUE(ea.fails);
  EXPECT_EQ(ea.error, "AttributeError");
  EXPECT_EQ(ea.message,
            "partially initialized module 'a' has no attribute 'X' (most likely due to a circular import)");
}

TEST(Simulator, BareEntrySkipsParentInit) {
  // pkg/__init__ imports mod first, which hides the loop between mod and other.
  auto a = analysis_of({
      {"pkg/__init__.py", "from pkg.other import O\n"},
      {"pkg/other.py", "from pkg.mod import M\nO = 1\n"},
      {"pkg/mod.py", "from pkg.other import O\nM = 2\n"},
  });
  auto normal = simulate(a, EntryMode::Normal);
  auto bare = simulate(a, EntryMode::Bare);
  EXPECT_TRUE(entry(a, normal, "pkg.mod").fails);  // the parent runs first and enters via other
  EXPECT_TRUE(entry(a, bare, "pkg.mod").fails);
  EXPECT_TRUE(entry(a, bare, "pkg.other").fails);
}

TEST(Simulator, SubmoduleFallbackThroughSysModules) {
  // `from p import sub` while p.sub is partially initialised works since 3.7.
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/a.py", "from p import b\nA = 1\n"},
      {"p/b.py", "from p import a\nB = 1\n"},
  });
  EXPECT_EQ(simulate(a, EntryMode::Normal).failing(), 0u);
}

TEST(Simulator, TypeCheckingImportsNeverRun) {
  auto a = analysis_of({
      {"a.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from b import B\nA = 1\n"},
      {"b.py", "from a import A\nB = 2\n"},
  });
  EXPECT_EQ(simulate(a, EntryMode::Normal).failing(), 0u);
}

TEST(Simulator, ModuleLevelCallRunsLocalImport) {
  auto a = analysis_of({
      {"a.py", "def setup():\n    from b import B\n    return B\nsetup()\nA = 1\n"},
      {"b.py", "from a import A\nB = 2\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_TRUE(entry(a, r, "a").fails);
  auto& chain = entry(a, r, "a").chain;
  ASSERT_FALSE(chain.empty());
  EXPECT_EQ(chain.front().line, 2);  // the local import inside setup()
}

// Issue 16: a failure a handler catches is decided: the handler runs, the rest
// of the try body does not, and the import goes on (checked with CPython 3.11).
TEST(Simulator, CaughtFailureIsDecided) {
  auto a = analysis_of({
      {"a.py", "try:\n    from b import B\nexcept ImportError:\n    B = None\nA = 1\n"},
      {"b.py", "from a import A\nB = 2\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  for (const char* m : {"a", "b"}) {
    const auto& e = entry(a, r, m);
    EXPECT_FALSE(e.fails) << m << ": " << e.message;
    EXPECT_FALSE(e.uncertain) << m;
  }
}

TEST(Simulator, CaughtFailureSkipsTheRestOfTheTryBody) {
  // b's failure is caught in a; the import of c after it never runs, so c's
  // own circular failure never happens.
  auto a = analysis_of({
      {"a.py", "try:\n    from b import B\n    import c\nexcept Exception:\n    B = None\nA = 1\n"},
      {"b.py", "from a import A\nB = 2\n"},
      {"c.py", "from a import A\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  const auto& e = entry(a, r, "a");
  EXPECT_FALSE(e.fails) << e.message;
  EXPECT_FALSE(e.uncertain);
}

TEST(Simulator, HandlerMustCatchTheErrorClass) {
  auto src = [](const char* handler) {
    return analysis_of({
        {"a.py", "import b\nA = 1\n"},
        {"b.py", std::string("import a\ntry:\n    X = a.A\nexcept ") + handler + ":\n    X = None\n"},
    });
  };
  auto narrow = src("ImportError");  // AttributeError passes through
  auto rn = simulate(narrow, EntryMode::Normal);
  const auto& n = entry(narrow, rn, "a");
  EXPECT_TRUE(n.fails);
  EXPECT_EQ(n.error, "AttributeError");
  EXPECT_FALSE(n.uncertain);
  for (const char* h : {"AttributeError", "Exception", "(ImportError, AttributeError)"}) {
    auto wide = src(h);
    auto rw = simulate(wide, EntryMode::Normal);
    const auto& w = entry(wide, rw, "a");
    EXPECT_FALSE(w.fails) << h;
    EXPECT_FALSE(w.uncertain) << h;
  }
}

TEST(Simulator, StarImportFromPartialModuleIsUncertain) {
  auto a = analysis_of({
      {"a.py", "from b import *\nA = 1\n"},
      {"b.py", "from a import *\nB = 2\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_TRUE(entry(a, r, "a").uncertain);
  EXPECT_FALSE(entry(a, r, "a").fails);
}

TEST(Simulator, ThirdPartyImportsAreLeaves) {
  auto a = analysis_of({{"a.py", "import os\nfrom collections import OrderedDict\nA = 1\n"}});
  EXPECT_EQ(simulate(a, EntryMode::Normal).failing(), 0u);
}

TEST(Simulator, DynamicImportAtImportTimeIsUncertain) {
  auto a = analysis_of({
      {"a.py", "import importlib\nplugins = importlib.import_module('b')\ndef later():\n    return __import__('b')\n"},
      {"b.py", "B = 1\n"},
      {"c.py", "def f():\n    import importlib\n    return importlib.import_module('b')\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  const auto& ea = entry(a, r, "a");
  EXPECT_TRUE(ea.uncertain);
  ASSERT_EQ(ea.unknowns.size(), 1u);
  EXPECT_NE(ea.unknowns[0].find("importlib.import_module('b') at import time at a.py:2"), std::string::npos)
      << ea.unknowns[0];
  EXPECT_FALSE(entry(a, r, "c").uncertain);  // only inside a function that never runs
}

// Modules on no cycle skip their reads (PlainModule). A cycle made only by a
// read (`p.q.R` needs p.q, which imports b) must keep b's reads.
TEST(Simulator, CycleThroughAReadKeepsTheRead) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/q.py", "import b\nR = 1\n"},
      {"b.py", "import p\nX = p.q.R\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  const auto& e = entry(a, r, "p.q");
  EXPECT_TRUE(e.fails);
  EXPECT_EQ(e.error, "AttributeError");
  EXPECT_EQ(e.message, "cannot access submodule 'q' of module 'p' (most likely due to a circular import)");
  EXPECT_FALSE(entry(a, r, "b").fails);  // b first: p.q finishes before b reads it
}

// A module on no cycle still runs the bodies it calls when they import.
TEST(Simulator, ModuleOnNoCycleRunsItsImportingCalls) {
  auto a = analysis_of({
      {"c.py", "def setup():\n    import a\nsetup()\n"},
      {"a.py", "from b import B\nA = 1\n"},
      {"b.py", "from a import A\nB = 2\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  const auto& e = entry(a, r, "c");
  EXPECT_TRUE(e.fails);
  ASSERT_EQ(e.chain.size(), 3u);
  EXPECT_EQ(a.modules[e.chain[0].module].name, "c");
  EXPECT_EQ(e.chain[0].line, 2);  // the import inside setup()
}

// A module on no cycle knows its own names before it runs; a stub package's
// names are not its body's (it never ran), so the read from it must still fail.
TEST(Simulator, ModuleOnNoCycleReadingAStubFails) {
  auto a = analysis_of({
      {"pkg/__init__.py", "VALUE = 1\n"},
      {"pkg/mod.py", "from pkg import VALUE\n"},
  });
  EXPECT_FALSE(entry(a, simulate(a, EntryMode::Normal), "pkg.mod").fails);
  auto bare = simulate(a, EntryMode::Bare);
  const auto& e = entry(a, bare, "pkg.mod");
  EXPECT_TRUE(e.fails);
  EXPECT_FALSE(e.circular);
  EXPECT_EQ(e.message, "cannot import name 'VALUE' from 'pkg' (pkg/__init__.py)");
}

// Entries replay from a shared state and roll it back: a failing entry must not
// leak into the next one, and simulating one entry predicts what the full run does.
TEST(Simulator, EntriesDoNotLeakIntoEachOther) {
  auto a = analysis_of({
      {"pkg/__init__.py", "from pkg.base import Base\n"},
      {"pkg/base.py", "Base = 1\n"},
      {"pkg/x.py", "from pkg.y import Y\nX = 1\n"},
      {"pkg/y.py", "from pkg.x import X\nY = 2\n"},
      {"pkg/z.py", "from pkg.x import X\nfrom pkg import Base\n"},
  });
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    auto all = simulate(a, mode);
    EXPECT_TRUE(entry(a, all, "pkg.x").fails) << to_string(mode);
    EXPECT_TRUE(entry(a, all, "pkg.y").fails) << to_string(mode);
    EXPECT_TRUE(entry(a, all, "pkg.z").fails) << to_string(mode);  // enters the loop at x
    EXPECT_FALSE(entry(a, all, "pkg.base").fails) << to_string(mode);
    for (const auto& e : all.entries) {
      auto one = simulate(a, mode, {e.module});
      ASSERT_EQ(one.entries.size(), 1u);
      EXPECT_EQ(one.entries[0].fails, e.fails) << a.modules[e.module].name;
      EXPECT_EQ(one.entries[0].message, e.message) << a.modules[e.module].name;
      EXPECT_EQ(one.entries[0].chain.size(), e.chain.size()) << a.modules[e.module].name;
    }
  }
}

// Large simulations skip the bodies of settled modules (whose import can
// neither fail nor be uncertain) and import them as already complete. Each
// tree below is simulated with skipping forced on and off, in both entry modes:
// every prediction must be the same, field by field.
namespace {

struct SkipThreshold {
  explicit SkipThreshold(std::size_t n) { set_simulator_skip_threshold(n); }
  ~SkipThreshold() { set_simulator_skip_threshold(32); }
};

std::vector<std::string> describe(const Analysis& a, const SimulationResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.entries) {
    std::string s = a.modules[e.module].name + (e.fails ? " FAILS " : " ok ") + (e.circular ? "circular " : "") +
                    e.error + ": " + e.message + (e.uncertain ? " uncertain" : "");
    for (const auto& h : e.chain) s += " | " + a.modules[h.module].name + ":" + std::to_string(h.line);
    if (e.partial) s += " partial=" + a.modules[*e.partial].name;
    for (const auto& u : e.unknowns) s += " ? " + u;
    out.push_back(s);
  }
  return out;
}

// The number of skipped imports with skipping forced on, after checking that
// skipping changed no prediction.
std::size_t expect_skipping_changes_nothing(const Analysis& a, EntryMode mode) {
  SimulationResult on, off;
  {
    SkipThreshold always(0);
    on = simulate(a, mode);
  }
  {
    SkipThreshold never(std::numeric_limits<std::size_t>::max());
    off = simulate(a, mode);
  }
  EXPECT_EQ(off.skipped, 0u);
  EXPECT_EQ(describe(a, on), describe(a, off)) << to_string(mode);
  return on.skipped;
}

}  // namespace

// A harmless cycle (each module binds what the other reads before importing
// it) is settled once every entry into it is tried; a harmful one is not, and
// neither is what imports it.
TEST(SimulatorSkip, SettledCyclesAreSkippedHarmfulOnesRun) {
  auto a = analysis_of({
      {"base/__init__.py", ""},
      {"base/util.py", "U = 1\n"},
      {"ok/__init__.py", ""},
      {"ok/x.py", "from base.util import U\nX = 1\nfrom ok.y import Y\n"},
      {"ok/y.py", "Y = 1\nfrom ok.x import X\n"},
      {"bad/__init__.py", ""},
      {"bad/p.py", "from bad.q import Q\nP = 1\n"},
      {"bad/q.py", "from bad.p import P\nQ = 1\n"},
      {"app/__init__.py", ""},
      {"app/main.py", "import ok.x\nimport base.util\nfrom bad.p import P\n"},
      {"app/other.py", "import ok.y\nimport app.main\n"},
      {"tool.py", "import ok.x\nimport ok.y\nimport base.util\n"},
  });
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    EXPECT_GT(expect_skipping_changes_nothing(a, mode), 0u) << to_string(mode);
    SkipThreshold always(0);
    auto r = simulate(a, mode);
    EXPECT_FALSE(entry(a, r, "ok.x").fails);
    EXPECT_FALSE(entry(a, r, "ok.y").fails);
    EXPECT_FALSE(entry(a, r, "tool").fails);
    EXPECT_TRUE(entry(a, r, "bad.q").fails);
    EXPECT_TRUE(entry(a, r, "app.main").fails);  // through bad.p: a loop that is not settled
    EXPECT_TRUE(entry(a, r, "app.other").fails);
  }
}

// Bare entry: a settled module whose body reads a name from the entry's stub
// ancestor must still run (and fail); one that does not may be skipped.
TEST(SimulatorSkip, StubAncestorsStopSkipping) {
  auto a = analysis_of({
      {"pkg/__init__.py", "VALUE = 1\n"},
      {"pkg/mod.py", "import helper\n"},
      {"pkg/calm.py", "import plain\n"},
      {"helper.py", "import reader\n"},
      {"reader.py", "from pkg import VALUE\n"},
      {"plain.py", "import pkg.leaf\n"},
      {"pkg/leaf.py", "L = 1\n"},
  });
  EXPECT_GT(expect_skipping_changes_nothing(a, EntryMode::Bare), 0u);
  expect_skipping_changes_nothing(a, EntryMode::Normal);
  SkipThreshold always(0);
  auto bare = simulate(a, EntryMode::Bare);
  const auto& e = entry(a, bare, "pkg.mod");
  EXPECT_TRUE(e.fails);
  EXPECT_FALSE(e.circular);
  EXPECT_EQ(e.message, "cannot import name 'VALUE' from 'pkg' (pkg/__init__.py)");
  EXPECT_FALSE(entry(a, bare, "pkg.calm").fails);
  EXPECT_FALSE(entry(a, simulate(a, EntryMode::Normal), "pkg.mod").fails);
}

// `from pkg import *` binds the submodules a skipped module imported into pkg,
// so those imports are run before the star import reads pkg. Checked against
// CPython 3.11: `import cyc1` works, `import cyc2` fails.
TEST(SimulatorSkip, StarImportSeesSubmodulesOfSkippedModules) {
  auto a = analysis_of({
      {"pkg/__init__.py", ""},
      {"pkg/sub.py", "V = 1\n"},
      {"s.py", "import pkg.sub\n"},
      {"cyc1.py", "import s\nfrom pkg import *\nfrom cyc2 import Y\nZ = 1\n"},
      {"cyc2.py", "from cyc1 import sub\nY = 1\n"},
  });
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    EXPECT_GT(expect_skipping_changes_nothing(a, mode), 0u);
    SkipThreshold always(0);
    auto r = simulate(a, mode);
    EXPECT_FALSE(entry(a, r, "cyc1").fails) << to_string(mode);
    EXPECT_TRUE(entry(a, r, "cyc2").fails) << to_string(mode);
  }
}

// What the model cannot follow (a dynamic import, a caught failure, a star
// import) keeps a module and everything that imports it from being skipped;
// import-time calls that import, recursive functions and submodule reads
// predict the same either way.
TEST(SimulatorSkip, UncertainAndCallingModulesPredictTheSame) {
  auto a = analysis_of({
      {"dyn.py", "import importlib\nm = importlib.import_module('base')\n"},
      {"uses_dyn.py", "import dyn\n"},
      {"base/__init__.py", ""},
      {"base/leaf.py", "L = 1\n"},
      {"guard.py", "try:\n    from loopa import A\nexcept ImportError:\n    A = None\n"},
      {"loopa.py", "from loopb import B\nA = 1\n"},
      {"loopb.py", "import guard\nfrom loopa import A\nB = 1\n"},
      {"calls.py",
       "def load():\n    import base.leaf\n    return base.leaf.L\n"
       "def again(n):\n    return again(n - 1) if n else load()\n"
       "VALUE = again(3)\n"},
      {"reads.py", "import base\nimport calls\nX = base.leaf.L\n"},
      {"top.py", "import uses_dyn\nimport reads\nimport calls\n"},
  });
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    expect_skipping_changes_nothing(a, mode);
    SkipThreshold always(0);
    auto r = simulate(a, mode);
    EXPECT_TRUE(entry(a, r, "uses_dyn").uncertain) << to_string(mode);
    EXPECT_TRUE(entry(a, r, "top").uncertain) << to_string(mode);
    EXPECT_FALSE(entry(a, r, "reads").fails) << to_string(mode);
  }
}

// Every tree the other simulator tests use predicts the same with skipping.
TEST(SimulatorSkip, EarlierTreesPredictTheSame) {
  const std::vector<std::vector<std::pair<std::string, std::string>>> trees = {
      {{"a.py", "from b import B\nA = 1\n"}, {"b.py", "from a import A\nB = 2\n"}},
      {{"p/__init__.py", ""}, {"p/q.py", "import b\nR = 1\n"}, {"b.py", "import p\nX = p.q.R\n"}},
      {{"c.py", "def setup():\n    import a\nsetup()\n"},
       {"a.py", "from b import B\nA = 1\n"},
       {"b.py", "from a import A\nB = 2\n"}},
      {{"pkg/__init__.py", "from pkg.base import Base\n"},
       {"pkg/base.py", "Base = 1\n"},
       {"pkg/x.py", "from pkg.y import Y\nX = 1\n"},
       {"pkg/y.py", "from pkg.x import X\nY = 2\n"},
       {"pkg/z.py", "from pkg.x import X\nfrom pkg import Base\n"}},
      {{"p/__init__.py", ""},
       {"p/x.py", "import p.y as y\ndef f():\n    return y.g()\n"},
       {"p/y.py", "from . import x\ndef g():\n    return x.f\n"}},
  };
  for (const auto& files : trees) {
    auto a = analysis_of(files);
    for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) expect_skipping_changes_nothing(a, mode);
  }
}

// Replaying a skipped body's imports (for a star import) must not start
// another replay when that body reads a submodule nobody imported.
TEST(SimulatorSkip, ReplayingSkippedBodiesDoesNotRecurse) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/q.py", "R = 1\n"},
      {"s.py", "import p\nimport t\nX = p.q.R\n"},  // s and t: a harmless cycle, settled
      {"t.py", "import s\n"},
      {"cyc1.py", "import s\nfrom p import *\nfrom cyc2 import Y\nZ = 1\n"},
      {"cyc2.py", "from cyc1 import Z\nY = 1\n"},
  });
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) EXPECT_GT(expect_skipping_changes_nothing(a, mode), 0u);
}

// Issue 16: what a partially initialised module already has. Each case was run
// with CPython 3.11 (tests: the golden sim_* cases check the same trees).
TEST(SimulatorCertainty, ExtensionModuleIsASubmoduleThatRunsNoPython) {
  auto a = analysis_of({
      {"pkg/__init__.py", "from pkg import core\nfrom pkg._json import make_encoder\n"},
      {"pkg/core.py", "from pkg import _json\nimport pkg._json as j\nE = j.make_encoder\n"},
      {"pkg/_json.cpython-311-x86_64-linux-gnu.so", ""},
  });
  ASSERT_TRUE(a.modules.find("pkg._json"));
  EXPECT_TRUE(a.modules[*a.modules.find("pkg._json")].is_extension);
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) {
    auto r = simulate(a, m);
    EXPECT_EQ(r.failing(), 0u) << to_string(m);
    EXPECT_EQ(r.uncertain(), 0u) << to_string(m);
    for (const auto& e : r.entries) EXPECT_NE(a.modules[e.module].name, "pkg._json");  // not an entry point
  }
}

TEST(SimulatorCertainty, ModuleDundersExistWhileLoading) {
  auto a = analysis_of({
      {"pkg/__init__.py", "from pkg import core\n__version__ = '1'\n"},
      {"pkg/core.py", "import pkg\nHERE = pkg.__file__, pkg.__name__, pkg.__path__, pkg.__spec__\n"
                      "from pkg import __name__ as parent\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_EQ(r.failing(), 0u);
  // A dunder the import system does not set is an ordinary name.
  auto b = analysis_of({
      {"pkg/__init__.py", "from pkg import core\n__version__ = '1'\n"},
      {"pkg/core.py", "import pkg\nV = pkg.__version__\n"},
  });
  EXPECT_TRUE(entry(b, simulate(b, EntryMode::Normal), "pkg").fails);
}

TEST(SimulatorCertainty, ModuleGetattrServesNamesOnceDefined) {
  auto a = analysis_of({
      {"lazy/__init__.py", "def __getattr__(name):\n    raise AttributeError(name)\nfrom lazy import sub\n"},
      {"lazy/sub.py", "from lazy import thing\nimport lazy\nX = lazy.other\n"},
  });
  EXPECT_FALSE(entry(a, simulate(a, EntryMode::Normal), "lazy").fails);
  // Defined after the import that needs it: not there yet.
  auto b = analysis_of({
      {"lazy/__init__.py", "from lazy import sub\ndef __getattr__(name):\n    raise AttributeError(name)\n"},
      {"lazy/sub.py", "from lazy import thing\n"},
  });
  EXPECT_TRUE(entry(b, simulate(b, EntryMode::Normal), "lazy").fails);
}

TEST(SimulatorCertainty, DynamicImportsOfOtherPackagesAreLeaves) {
  auto a = analysis_of({
      {"p/__init__.py", "for dep in ('json', 'decimal'):\n    __import__(dep)\nimport importlib\n"
                        "importlib.import_module('xml.dom')\nfrom p import m\n"},
      {"p/m.py", "import p\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_EQ(r.uncertain(), 0u);
  EXPECT_EQ(simulation_json(a, r)["assumptions"].size(), 3u);
  // A first-party one is still not followed.
  auto b = analysis_of({{"p/__init__.py", "__import__('p.m')\n"}, {"p/m.py", ""}});
  EXPECT_EQ(simulate(b, EntryMode::Normal).uncertain(), 2u);  // p, and p.m (its parent p runs first)
}

TEST(SimulatorCertainty, GuardsAreDecidedForTheTarget) {
  SimulationTarget linux311{"linux", "posix", 3, 11};
  SimulationTarget win38{"win32", "nt", 3, 8};
  EXPECT_TRUE(evaluate_guard("!(sys.platform==win32)&&sys.platform^=lin", linux311));
  EXPECT_FALSE(evaluate_guard("sys.platform==win32", linux311));
  EXPECT_TRUE(evaluate_guard("(sys.version_info>=3,8&&!(__debug__))||os.name==nt", win38));
  EXPECT_FALSE(evaluate_guard("sys.version_info>=3,9", win38));
  EXPECT_TRUE(evaluate_guard("sys.version_info>3,8", win38));       // (3, 8, 0, ...) > (3, 8)
  EXPECT_FALSE(evaluate_guard("sys.version_info[:2]>3,8", win38));  // (3, 8) > (3, 8)
  EXPECT_FALSE(evaluate_guard("sys.version_info==3,8", win38));     // a 5-tuple never equals a pair
  EXPECT_TRUE(evaluate_guard("sys.version_info>=3", linux311));
  EXPECT_FALSE(evaluate_guard("sys.version_info<3", linux311));

  // A failure only the Windows branch reaches: certain, and decided by the target.
  auto a = analysis_of({
      {"app/__init__.py", "import sys\nfrom app import core\nif sys.platform == 'win32':\n    from app import win\nX = 1\n"},
      {"app/core.py", ""},
      {"app/win.py", "from app import X\n"},
  });
  const SimulationTarget saved = simulation_target();
  set_simulation_target(linux311);
  auto on_linux = simulate(a, EntryMode::Normal);
  set_simulation_target(win38);
  auto on_windows = simulate(a, EntryMode::Normal);
  set_simulation_target(saved);
  EXPECT_FALSE(entry(a, on_linux, "app").fails);
  EXPECT_FALSE(entry(a, on_linux, "app").uncertain);
  EXPECT_TRUE(entry(a, on_windows, "app").fails);
  EXPECT_FALSE(entry(a, on_windows, "app").uncertain);
}

// `bases==` atoms: three-valued, decided only with a class statement's bases.
TEST(SimulatorCertainty, BasesGuardsNeedAClassStatement) {
  struct Fixed final : GuardBases {
    GuardValue v;
    explicit Fixed(GuardValue x) : v(x) {}
    GuardValue equal(const std::vector<std::string_view>&) const override { return v; }
  };
  SimulationTarget t{"linux", "posix", 3, 11};
  const Fixed yes(GuardValue::True), no(GuardValue::False), unknown(GuardValue::Unknown);
  bool read = false;
  EXPECT_EQ(evaluate_guard("!(bases==Base)", t, nullptr, &read), GuardValue::Unknown);
  EXPECT_FALSE(read);
  EXPECT_EQ(evaluate_guard("!(bases==Base)", t, &yes, &read), GuardValue::False);
  EXPECT_TRUE(read);
  EXPECT_EQ(evaluate_guard("bases!=Base,Mixin", t, &yes), GuardValue::False);
  EXPECT_EQ(evaluate_guard("!(bases==Base)", t, &no), GuardValue::True);
  // Kleene logic: a decided side can settle an undecided one.
  EXPECT_EQ(evaluate_guard("sys.platform==win32&&bases==Base", t, &unknown), GuardValue::False);
  EXPECT_EQ(evaluate_guard("sys.platform==linux||bases==Base", t, &unknown), GuardValue::True);
  EXPECT_EQ(evaluate_guard("sys.platform==linux&&bases==Base", t, &unknown), GuardValue::Unknown);
  // The two-valued form: false only when decided false.
  EXPECT_TRUE(evaluate_guard("!(bases==Base)", t));
}

// Django's ModelFormMetaclass: `if bases == (BaseModelForm,): return` skips
// the rest for the base form's own class statement; another class statement
// with the same metaclass runs it (the first run must not count as "ran clean").
TEST(SimulatorCertainty, MetaclassEarlyReturnOnTheBasesIsDecided) {
  auto a = analysis_of({
      {"shop/__init__.py", ""},
      {"shop/forms.py",
       "class BaseForm:\n    pass\n"
       "class FormMeta(type):\n"
       "    def __new__(mcs, name, bases, attrs):\n"
       "        new = super().__new__(mcs, name, bases, attrs)\n"
       "        if bases == (BaseForm,):\n"
       "            return new\n"
       "        from shop.models import Field\n"
       "        return new\n"
       "class Form(BaseForm, metaclass=FormMeta):\n    pass\n"},
      {"shop/models.py", "from shop.forms import Form\nimport shop.widgets\nclass Field:\n    pass\n"},
      {"shop/widgets.py",
       "from shop.forms import BaseForm, FormMeta\nclass Mixin:\n    pass\n"
       "class Widget(BaseForm, Mixin, metaclass=FormMeta):\n    pass\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_EQ(r.uncertain(), 0u);
  EXPECT_FALSE(entry(a, r, "shop.forms").fails);
  EXPECT_FALSE(entry(a, r, "shop.widgets").fails);
  const auto& models = entry(a, r, "shop.models");
  EXPECT_TRUE(models.fails);
  EXPECT_TRUE(models.circular);
  EXPECT_NE(models.message.find("cannot import name 'Field'"), std::string::npos);
}

// Both arms of an undecided branch end in a circular failure: certain.
TEST(SimulatorCertainty, BothArmsFailingIsCertain) {
  auto tree = [](const char* b_tail) {
    return analysis_of({
        {"p/__init__.py", ""},
        {"p/a.py", "from p import b\nA = 1\n"},
        {"p/b.py", std::string("from p import c\nc.f()\n") + b_tail},
        {"p/c.py", "def f():\n    if FLAG:\n        from p.a import A\n"},
    });
  };
  auto fails = tree("from p.a import A\n");
  auto rf = simulate(fails, EntryMode::Normal);
  const auto& ef = entry(fails, rf, "p.a");
  EXPECT_TRUE(ef.fails);
  EXPECT_FALSE(ef.uncertain);
  EXPECT_EQ(ef.unknowns.size(), 1u);  // the branch is still named
  // Taken, the branch fails; not taken, the import succeeds: undecided.
  auto ok = tree("");
  auto ro = simulate(ok, EntryMode::Normal);
  const auto& eo = entry(ok, ro, "p.a");
  EXPECT_FALSE(eo.fails);
  EXPECT_TRUE(eo.uncertain);
}

// An `if` at module level whose test the model cannot read: a failure under
// it is a guess (the branch may not be taken), not a certain prediction.
TEST(SimulatorCertainty, UndecidedModuleLevelBranchIsUncertain) {
  auto a = analysis_of({
      {"a.py", "import os\nif os.environ.get('X'):\n    from b import B\nA = 1\n"},
      {"b.py", "from a import A\nB = 1\n"},
  });
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) {
    auto r = simulate(a, m);
    for (const char* mod : {"a", "b"}) {
      const auto& e = entry(a, r, mod);
      EXPECT_FALSE(e.fails) << mod;
      EXPECT_TRUE(e.uncertain) << mod;
    }
    EXPECT_EQ(simulation_json(a, r)["uncertain_by_reason"]["conditional branch"], 2);
  }
}
