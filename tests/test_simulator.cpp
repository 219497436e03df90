// The import-order simulator on in-memory packages. Each expectation was
// checked against CPython 3.11 by importing the same tree in a fresh interpreter.

#include <gtest/gtest.h>

#include "in_memory.hpp"
#include "simulator.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;

namespace {

const EntryPrediction& entry(const Analysis& a, const SimulationResult& r, const std::string& module) {
  static EntryPrediction none;
  for (const auto& e : r.entries)
    if (a.modules[e.module].name == module) return e;
  ADD_FAILURE() << "no entry " << module;
  return none;
}

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

TEST(Simulator, CaughtFailureIsUncertain) {
  auto a = analysis_of({
      {"a.py", "try:\n    from b import B\nexcept ImportError:\n    B = None\nA = 1\n"},
      {"b.py", "from a import A\nB = 2\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  const auto& ea = entry(a, r, "a");
  EXPECT_FALSE(ea.fails);
  EXPECT_TRUE(ea.uncertain);
  ASSERT_FALSE(ea.unknowns.empty());
  EXPECT_NE(ea.unknowns[0].find("caught"), std::string::npos);
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
