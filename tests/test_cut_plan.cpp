// Choosing the cuts on in-memory packages: cuttability with reasons, the
// seed's lessons 1 and 2, and the --only-failing mode.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "cut_plan.hpp"
#include "cut_solver.hpp"
#include "in_memory.hpp"
#include "simulator.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;

namespace {

struct Planned {
  Analysis a;
  CycleReport cycles;
  CutPlan plan;
};

Planned plan_of(const std::vector<std::pair<std::string, std::string>>& files, PlanOptions o = {}) {
  Planned p{analysis_of(files), {}, {}};
  p.cycles = build_cycle_report(p.a, 100);
  p.plan = plan_cuts(p.a, p.cycles, o);
  return p;
}

const CandidateStatement* candidate(const Planned& p, const std::string& file, int line) {
  for (const auto& c : p.plan.candidates)
    if (p.a.files[c.file].source.display == file && p.a.files[c.file].facts.imports[c.import].line == line) return &c;
  return nullptr;
}

std::vector<std::string> cut_sites(const Planned& p) {
  std::vector<std::string> out;
  for (int i : p.plan.cuts) {
    const auto& c = p.plan.candidates[i];
    out.push_back(p.a.files[c.file].source.display + ":" +
                  std::to_string(p.a.files[c.file].facts.imports[c.import].line));
  }
  return out;
}

}  // namespace

// Lesson 2: one cut on the shared module breaks all three loops; cutting where
// an error was seen would break one.
TEST(CutPlan, PrefersTheCutThatBreaksEveryLoop) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/hub.py", "from p.core import Core\ndef use():\n    return Core()\n"},
      {"p/core.py", "import p.a\nimport p.b\nimport p.c\nclass Core: pass\n"},
      {"p/a.py", "from p.hub import use\ndef fa():\n    return use()\n"},
      {"p/b.py", "from p.hub import use\ndef fb():\n    return use()\n"},
      {"p/c.py", "from p.hub import use\ndef fc():\n    return use()\n"},
  });
  ASSERT_EQ(p.cycles.components.size(), 1u);
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"p/hub.py:1"});
  EXPECT_TRUE(p.plan.optimal);
  EXPECT_DOUBLE_EQ(p.plan.cost, kCostPerStatementLine + kCostPerFunction);
  EXPECT_EQ(p.plan.remaining_cycles, 0u);
  const auto* hub = candidate(p, "p/hub.py", 1);
  ASSERT_NE(hub, nullptr);
  EXPECT_EQ(hub->functions, std::vector<std::string>{"use"});
  EXPECT_EQ(loops_broken_by(p.a, p.cycles, *hub).size(), 3u);
}

// Lesson 1: the import whose name is used in an __init__ that a module-level
// instantiation runs is pinned; the plan cuts elsewhere.
TEST(CutPlan, ImportUsedInInitReachedAtImportTimeIsUncuttable) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/verifier.py",
       "from p.config import EdgeConfig\n"
       "class Verifier:\n    def __init__(self):\n        self.config = EdgeConfig()\n"
       "DEFAULT = Verifier()\n"},
      {"p/config.py", "from p.capture import capture\nclass EdgeConfig: pass\n"},
      {"p/capture.py", "from p.verifier import Verifier\ndef capture():\n    return Verifier()\n"},
  });
  const auto* pinned = candidate(p, "p/verifier.py", 1);
  ASSERT_NE(pinned, nullptr);
  EXPECT_FALSE(pinned->cuttable);
  EXPECT_NE(pinned->reason.find("Verifier.__init__() at p/verifier.py:4, which module-level code runs (the call at p/verifier.py:5)"), std::string::npos)
      << pinned->reason;
  EXPECT_EQ(p.plan.remaining_cycles, 0u);
  for (const auto& site : cut_sites(p)) EXPECT_NE(site, "p/verifier.py:1");
}

TEST(CutPlan, ReasonsNameThePinningUse) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/a.py", "from p.b import Base\nclass A(Base): pass\n"},
      {"p/b.py", "from p.a import A\n__all__ = ['A']\nclass Base: pass\n"},
      {"p/c.py", "from p.b import A\n"},
  });
  const auto* a = candidate(p, "p/a.py", 1);
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->cuttable);
  EXPECT_EQ(a->reason, "used at import time: 'Base' in a base class at p/a.py:2");
  const auto* b = candidate(p, "p/b.py", 1);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->cuttable);
  EXPECT_NE(b->reason.find("re-exported: 'A'"), std::string::npos) << b->reason;
  // Nothing can be cut: the loop is reported as unbreakable.
  EXPECT_TRUE(p.plan.cuts.empty());
  EXPECT_EQ(p.plan.remaining_cycles, 1u);
  EXPECT_FALSE(p.plan.unbreakable_loops.empty());
}

TEST(CutPlan, ReExportedByAnotherModuleIsUncuttable) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/a.py", "from p.b import helper\ndef f():\n    return helper()\n"},
      {"p/b.py", "from p.a import f\ndef helper():\n    return f\n"},
      {"p/c.py", "from p.a import helper\n"},
  });
  const auto* a = candidate(p, "p/a.py", 1);
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->cuttable);
  EXPECT_EQ(a->reason, "re-exported: 'helper' imported from here by p/c.py:1");
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"p/b.py:1"});
}

TEST(CutPlan, InitImportsArePublicUnlessAllowed) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"p/__init__.py", "from p.a import thing\ndef get():\n    return thing\n"},
      {"p/a.py", "from p import get\nX = 1\ndef thing():\n    return get()\n"},
  };
  auto strict = plan_of(files);
  const auto* init = candidate(strict, "p/__init__.py", 1);
  ASSERT_NE(init, nullptr);
  EXPECT_FALSE(init->cuttable);
  EXPECT_NE(init->reason.find("--allow-init-cuts"), std::string::npos);
  PlanOptions o;
  o.allow_init_cuts = true;
  auto relaxed = plan_of(files, o);
  EXPECT_TRUE(candidate(relaxed, "p/__init__.py", 1)->cuttable);
}

TEST(CutPlan, AnnotationOnlyNamesGoUnderTypeChecking) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/a.py", "from p.b import B\ndef f(x: B) -> B:\n    return x\nA = 1\n"},
      {"p/b.py", "from p.a import A\nclass B: pass\n"},
  });
  const auto* a = candidate(p, "p/a.py", 1);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->cuttable) << a->reason;
  EXPECT_EQ(a->type_checking, std::vector<std::string>{"B"});
  EXPECT_TRUE(a->functions.empty());
  EXPECT_DOUBLE_EQ(a->cost, kCostPerStatementLine + kCostPerTypeCheckingEntry);
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"p/a.py:1"});
}

TEST(CutPlan, SideEffectImportIsUncuttable) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/a.py", "import p.b\n"},
      {"p/b.py", "import p.a\n"},
  });
  for (const auto& c : p.plan.candidates) {
    EXPECT_FALSE(c.cuttable);
    EXPECT_NE(c.reason.find("side effects"), std::string::npos) << c.reason;
  }
}

// --only-failing: cut only what the simulator predicts to fail (tracker issue 4).
namespace {

PlanOptions only_failing() {
  PlanOptions o;
  o.only_failing = true;
  return o;
}

DeferredImports deferred_of(const Planned& p) {
  DeferredImports d;
  for (int i : p.plan.cuts) {
    const CandidateStatement& c = p.plan.candidates[i];
    (c.strategy == Strategy::Bypass ? d.rebound : d.moved).insert({c.file, c.import});
  }
  return d;
}

// a <-> b through module imports used only in functions: no entry fails.
const std::vector<std::pair<std::string, std::string>> kHarmless = {
    {"a.py", "import b\ndef fa():\n    return b.fb()\n"},
    {"b.py", "import a\ndef fb():\n    return a.fa()\n"},
};

// f <-> g: importing either first fails (g needs F before f defines it). g's
// import is pinned (F is used at import time), so the cut must be f.py:1.
const std::vector<std::pair<std::string, std::string>> kHarmful = {
    {"f.py", "from g import fg\ndef ff():\n    return fg()\nF = 1\n"},
    {"g.py", "from f import F\nG = F + 1\ndef fg():\n    return G\n"},
};

}  // namespace

// The guard (PlanOptions::guard): `d -> t -> d` is harmless, and `t -> f -> t`
// (pinned both ways) only works with t loaded before f. pkg.test_d gets that order
// through d's bottom import; deferring that import (the cheapest cut) would make
// test_d load f first and fail, so the plan pins it and cuts t's import instead.
std::vector<std::pair<std::string, std::string>> exposed_loop_tree(bool t_uses_d_in_functions) {
  return {
      {"pkg/__init__.py", ""},
      {"pkg/d.py", "def d_fn():\n    return helper_t()\n\nfrom pkg.t import helper_t\n"},
      {"pkg/t.py", std::string("def helper_t():\n    return 1\n\nfrom pkg.d import d_fn\nfrom pkg.f import fact\n"
                               "Y = fact()\n") +
                       (t_uses_d_in_functions ? "def a():\n    return d_fn()\ndef b():\n    return d_fn()\n" : "")},
      {"pkg/f.py", "from pkg.t import helper_t\nX = helper_t()\ndef fact():\n    return X\n"},
      {"pkg/test_d.py", "from pkg.d import d_fn\nfrom pkg.f import fact\n"},
      // A loop of its own, whose cut breaks nothing: the guard must find the culprit among several cuts.
      {"pkg/x.py", "from pkg.y import g\ndef f():\n    return g()\n"},
      {"pkg/y.py", "from pkg.x import f\ndef g():\n    return f()\ndef h():\n    return f()\n"},
  };
}

TEST(CutPlanGuard, PinsACutThatWouldBreakAWorkingEntryPoint) {
  PlanOptions unguarded;
  unguarded.guard = false;
  auto naive = plan_of(exposed_loop_tree(true), unguarded);
  EXPECT_EQ(cut_sites(naive), (std::vector<std::string>{"pkg/d.py:4", "pkg/x.py:1"}));  // the cheapest

  auto p = plan_of(exposed_loop_tree(true));
  EXPECT_EQ(cut_sites(p), (std::vector<std::string>{"pkg/t.py:4", "pkg/x.py:1"}));
  EXPECT_EQ(p.plan.guarded, 1u);
  EXPECT_DOUBLE_EQ(p.plan.cost, 2 * kCostPerStatementLine + 3 * kCostPerFunction);
  const auto* d = candidate(p, "pkg/d.py", 4);
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->cuttable);
  EXPECT_NE(d->reason.find("deferring it makes pkg.test_d fail to import (normal entry): cannot import name 'fact' "
                           "from partially initialized module 'pkg.f'"),
            std::string::npos)
      << d->reason;

  // With the cuts deferred, every entry point that imported before still does.
  DeferredImports deferred;
  for (int c : p.plan.cuts) deferred.moved.insert({p.plan.candidates[c].file, p.plan.candidates[c].import});
  for (EntryMode mode : {EntryMode::Normal, EntryMode::Bare}) {
    SimulationResult before = simulate(p.a, mode), after = simulate(p.a, mode, {}, deferred);
    ASSERT_EQ(before.entries.size(), after.entries.size());
    for (std::size_t i = 0; i < before.entries.size(); ++i)
      EXPECT_TRUE(before.entries[i].fails || !after.entries[i].fails) << p.a.modules[after.entries[i].module].name;
  }
}

// When the only cut of a loop would break an entry point, the loop stays.
TEST(CutPlanGuard, LeavesTheLoopWhenEveryCutBreaksSomething) {
  auto p = plan_of(exposed_loop_tree(false));  // t's import of d is unused: side effects, pinned
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"pkg/x.py:1"});
  EXPECT_EQ(p.plan.guarded, 1u);
  EXPECT_EQ(p.plan.remaining_cycles, 1u);
  EXPECT_EQ(p.plan.unbreakable_loops.size(), 2u);
}

// Nothing to guard: the plan is the solver's.
TEST(CutPlanGuard, KeepsCutsThatBreakNothing) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/a.py", "from p.b import g\ndef f():\n    return g()\n"},
      {"p/b.py", "from p.a import f\ndef g():\n    return f()\n"},
  });
  EXPECT_EQ(p.plan.cuts.size(), 1u);
  EXPECT_EQ(p.plan.guarded, 0u);
  EXPECT_EQ(p.plan.remaining_cycles, 0u);
}

TEST(CutPlanOnlyFailing, HarmlessCycleGetsNoCut) {
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare})
    EXPECT_EQ(simulate(analysis_of(kHarmless), m).failing(), 0u) << to_string(m);
  auto acyclic = plan_of(kHarmless);
  EXPECT_EQ(acyclic.plan.cuts.size(), 1u);
  EXPECT_EQ(acyclic.plan.remaining_cycles, 0u);
  EXPECT_FALSE(acyclic.plan.only_failing);
  EXPECT_EQ(plan_json(acyclic.a, acyclic.cycles, acyclic.plan)["plan"]["mode"], "acyclic");

  auto p = plan_of(kHarmless, only_failing());
  EXPECT_TRUE(p.plan.only_failing);
  EXPECT_TRUE(p.plan.cuts.empty());
  EXPECT_DOUBLE_EQ(p.plan.cost, 0);
  EXPECT_TRUE(p.plan.optimal);
  EXPECT_TRUE(p.plan.converged);
  EXPECT_EQ(p.plan.rounds, 1u);
  EXPECT_EQ(p.plan.failure_loops, 0u);
  EXPECT_EQ(p.plan.failing_before.normal + p.plan.failing_before.bare, 0u);
  EXPECT_EQ(p.plan.remaining_cycles, 1u);  // left alone
  EXPECT_TRUE(p.plan.unbreakable_loops.empty());
  auto j = plan_json(p.a, p.cycles, p.plan)["plan"];
  EXPECT_EQ(j["mode"], "only_failing");
  EXPECT_EQ(j["failing_before"], (nlohmann::json{{"normal", 0}, {"bare", 0}}));
  EXPECT_EQ(j["failing_after"], (nlohmann::json{{"normal", 0}, {"bare", 0}}));
}

TEST(CutPlanOnlyFailing, HarmfulCycleGetsTheCutThatFixesIt) {
  auto p = plan_of(kHarmful, only_failing());
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"f.py:1"});
  EXPECT_DOUBLE_EQ(p.plan.cost, kCostPerStatementLine + kCostPerFunction);
  EXPECT_TRUE(p.plan.optimal);
  EXPECT_TRUE(p.plan.converged);
  EXPECT_EQ(p.plan.failing_before.normal, 2u);
  EXPECT_EQ(p.plan.failing_before.bare, 2u);
  EXPECT_EQ(p.plan.failing_after.normal, 0u);
  EXPECT_EQ(p.plan.failing_after.bare, 0u);
  EXPECT_EQ(p.plan.failure_loops, 1u);
  EXPECT_EQ(p.plan.rounds, 2u);
  // The simulator, told the cuts are deferred, agrees: nothing fails in either mode.
  const DeferredImports d = deferred_of(p);
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) {
    EXPECT_GT(simulate(p.a, m).failing(), 0u) << to_string(m);
    EXPECT_EQ(simulate(p.a, m, {}, d).failing(), 0u) << to_string(m);
  }
  auto j = plan_json(p.a, p.cycles, p.plan)["plan"];
  EXPECT_EQ(j["failing_before"], (nlohmann::json{{"normal", 2}, {"bare", 2}}));
  EXPECT_EQ(j["failing_after"], (nlohmann::json{{"normal", 0}, {"bare", 0}}));
  std::ostringstream text;
  print_plan(text, p.a, p.cycles, p.plan);
  EXPECT_NE(text.str().find("only failing"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("normal 2 -> 0, bare 2 -> 0"), std::string::npos) << text.str();
}

TEST(CutPlanOnlyFailing, CheaperThanAcyclicWhenOneCycleIsHarmless) {
  std::vector<std::pair<std::string, std::string>> files = kHarmless;
  files.insert(files.end(), kHarmful.begin(), kHarmful.end());
  auto acyclic = plan_of(files);
  auto p = plan_of(files, only_failing());
  ASSERT_EQ(acyclic.cycles.components.size(), 2u);
  EXPECT_EQ(acyclic.plan.cuts.size(), 2u);
  EXPECT_EQ(acyclic.plan.remaining_cycles, 0u);
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"f.py:1"});
  EXPECT_LT(p.plan.cost, acyclic.plan.cost);
  EXPECT_EQ(p.plan.remaining_cycles, 1u);
  EXPECT_EQ(p.plan.failing_after.normal + p.plan.failing_after.bare, 0u);
  const DeferredImports d = deferred_of(p);
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) EXPECT_EQ(simulate(p.a, m, {}, d).failing(), 0u);
}

// Fixing one failure can expose the next: a's import of b fails first and
// hides that its import of c would fail too; the second round finds that loop.
TEST(CutPlanOnlyFailing, ResimulatesUntilNothingFails) {
  auto p = plan_of(
      {
          {"a.py", "from b import fb\nfrom c import fc\ndef fa():\n    return fb(), fc()\nA = 1\n"},
          {"b.py", "from a import A\nB = A\ndef fb():\n    return B\n"},
          {"c.py", "from a import A\nC = A\ndef fc():\n    return C\n"},
      },
      only_failing());
  EXPECT_EQ(cut_sites(p), (std::vector<std::string>{"a.py:1", "a.py:2"}));
  EXPECT_EQ(p.plan.rounds, 3u);
  EXPECT_EQ(p.plan.failure_loops, 2u);
  EXPECT_EQ(p.plan.failing_before.normal, 3u);
  EXPECT_EQ(p.plan.failing_after.normal + p.plan.failing_after.bare, 0u);
  EXPECT_TRUE(p.plan.optimal);
  EXPECT_TRUE(p.plan.converged);
  const DeferredImports d = deferred_of(p);
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) EXPECT_EQ(simulate(p.a, m, {}, d).failing(), 0u);
}

TEST(CutPlanOnlyFailing, UncertainFailuresAreCountedButDriveNoCuts) {
  // The cycle fails, but each entry also runs a dynamic import of a name the
  // model cannot read: uncertain. (A literal non-first-party name is a leaf.)
  auto p = plan_of(
      {
          {"f.py", "import importlib\nimportlib.import_module(NAME)\nfrom g import fg\ndef ff():\n    return fg()\nF = 1\n"},
          {"g.py", "from f import F\nG = F + 1\ndef fg():\n    return G\n"},
      },
      only_failing());
  EXPECT_TRUE(p.plan.cuts.empty());
  EXPECT_EQ(p.plan.failing_before.normal, 2u);
  EXPECT_EQ(p.plan.uncertain_before.normal, 2u);
  EXPECT_EQ(p.plan.failing_after.normal, 2u);
  EXPECT_EQ(p.plan.uncertain_after.normal, 2u);
  EXPECT_EQ(p.plan.failure_loops, 0u);
  auto j = plan_json(p.a, p.cycles, p.plan)["plan"];
  EXPECT_EQ(j["uncertain_failing_before"]["normal"], 2);
}

TEST(CutPlanOnlyFailing, FailingLoopOfPinnedStatementsIsReported) {
  auto p = plan_of(
      {
          {"a.py", "from b import B\nA = B\n"},
          {"b.py", "B = 1\nfrom a import A\nC = A\n"},
          {"c.py", "import d\ndef fc():\n    return d.fd()\n"},
          {"d.py", "import c\ndef fd():\n    return c.fc()\n"},
      },
      only_failing());
  EXPECT_TRUE(p.plan.cuts.empty());  // c <-> d is harmless, a <-> b cannot be cut
  ASSERT_EQ(p.plan.unbreakable_loops.size(), 1u);
  const auto& loop = p.plan.unbreakable_loops[0];
  ASSERT_EQ(loop.size(), 3u);
  EXPECT_EQ(loop.front(), loop.back());
  EXPECT_GT(p.plan.failing_after.normal, 0u);
  EXPECT_TRUE(p.plan.converged);
}

TEST(CutPlanOnlyFailing, Deterministic) {
  std::vector<std::pair<std::string, std::string>> files = kHarmless;
  files.insert(files.end(), kHarmful.begin(), kHarmful.end());
  files.push_back({"p/__init__.py", "from p.a import A\n"});
  files.push_back({"p/a.py", "from p.b import fb\ndef fa():\n    return fb()\nA = 1\n"});
  files.push_back({"p/b.py", "from p.a import A\nfrom p.c import fc\ndef fb():\n    return A, fc\n"});
  files.push_back({"p/c.py", "from p.b import fb\ndef fc():\n    return fb\nC = 1\n"});
  auto first = plan_of(files, only_failing());
  auto second = plan_of(files, only_failing());
  EXPECT_GE(first.plan.cuts.size(), 2u);
  EXPECT_EQ(cut_sites(first), cut_sites(second));
  EXPECT_DOUBLE_EQ(first.plan.cost, second.plan.cost);
  EXPECT_EQ(first.plan.rounds, second.plan.rounds);
  auto j1 = plan_json(first.a, first.cycles, first.plan), j2 = plan_json(second.a, second.cycles, second.plan);
  j1["plan"].erase("seconds");
  j2["plan"].erase("seconds");
  EXPECT_EQ(j1.dump(), j2.dump());
  const DeferredImports d = deferred_of(first);
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) EXPECT_EQ(simulate(first.a, m, {}, d).failing(), 0u);
}

// solve_hitting against brute force on small random instances, with and without the ILP.
TEST(CutPlanOnlyFailing, HittingSolverIsExactOnSmallInstances) {
  std::mt19937 rng(7);
  int ilp = 0, heuristic_gap = 0;
  for (int trial = 0; trial < 150; ++trial) {
    CutInstance inst;
    inst.nodes = 6;
    const int stmts = 3 + static_cast<int>(rng() % 8);
    for (int s = 0; s < stmts; ++s) {
      inst.statement_cost.push_back(0.5 + static_cast<double>(rng() % 6) * 0.25);
      inst.statement_cuttable.push_back(rng() % 6 != 0);
    }
    const int edges = 3 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edges; ++e) {
      CutInstance::Edge edge;
      edge.from = rng() % 6;
      edge.to = rng() % 6;
      const int k = 1 + static_cast<int>(rng() % 2);
      for (int i = 0; i < k; ++i) edge.statements.push_back(rng() % stmts);
      inst.edges.push_back(edge);
    }
    auto removable = [&](std::uint32_t e) {
      for (auto s : inst.edges[e].statements)
        if (!inst.statement_cuttable[s]) return false;
      return true;
    };
    std::vector<std::vector<std::uint32_t>> loops;
    const int count = 1 + static_cast<int>(rng() % 5);
    for (int l = 0; l < count; ++l) {
      std::vector<std::uint32_t> loop;
      const int len = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < len; ++i) loop.push_back(rng() % edges);
      if (std::none_of(loop.begin(), loop.end(), removable)) {
        EXPECT_THROW(solve_hitting(inst, {loop}, CutOptions{}), std::invalid_argument);
        continue;
      }
      loops.push_back(loop);
    }
    auto hits = [&](const std::vector<char>& cut) {
      for (const auto& loop : loops) {
        bool hit = false;
        for (auto e : loop) {
          bool all = removable(e);
          for (auto s : inst.edges[e].statements) all = all && cut[s];
          hit = hit || all;
        }
        if (!hit) return false;
      }
      return true;
    };
    double best = std::numeric_limits<double>::infinity();
    for (unsigned mask = 0; mask < (1u << stmts); ++mask) {
      std::vector<char> cut(stmts);
      double cost = 0;
      bool ok = true;
      for (int s = 0; s < stmts; ++s) {
        cut[s] = (mask >> s) & 1;
        if (cut[s] && !inst.statement_cuttable[s]) ok = false;
        if (cut[s]) cost += inst.statement_cost[s];
      }
      if (ok && hits(cut)) best = std::min(best, cost);
    }
    for (bool exact : {true, false}) {
      CutOptions o;
      o.exact = exact;
      CutSolution sol = solve_hitting(inst, loops, o);
      std::vector<char> cut(stmts, 0);
      for (auto s : sol.cut_statements) cut[s] = 1;
      EXPECT_TRUE(hits(cut)) << "trial " << trial;
      EXPECT_LE(sol.lower_bound, best + 1e-9) << "trial " << trial;
      EXPECT_GE(sol.cost, best - 1e-9) << "trial " << trial;
      if (sol.optimal || (exact && cbc_available())) EXPECT_NEAR(sol.cost, best, 1e-9) << "trial " << trial;
      ilp += sol.method == "ilp";
      heuristic_gap += !exact && !sol.optimal;
    }
  }
  // Both paths ran: instances the greedy plan and the packing bound do not settle.
  EXPECT_GT(heuristic_gap, 0);
  if (cbc_available()) EXPECT_GT(ilp, 0);
}

// Annotations that a library reads at run time (issue 15): the names in them
// stay module-level imports, pinned with the reason; the plan cuts elsewhere.
namespace {

// models <-> money, where money's import of Item is deferrable into one function.
Planned runtime_case(const std::string& models, PlanOptions o = {}) {
  return plan_of({
      {"p/__init__.py", ""},
      {"p/models.py", models},
      {"p/money.py", "from p.models import Item\nclass Money: pass\ndef make() -> Item:\n    return Item()\n"},
  }, o);
}

void expect_pinned_for_runtime(const Planned& p, const std::string& why) {
  const auto* pinned = candidate(p, "p/models.py", 1);
  ASSERT_NE(pinned, nullptr);
  EXPECT_FALSE(pinned->cuttable);
  EXPECT_NE(pinned->reason.find("annotation read at run time: 'Money'"), std::string::npos) << pinned->reason;
  EXPECT_NE(pinned->reason.find(why), std::string::npos) << pinned->reason;
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"p/money.py:1"});
}

}  // namespace

TEST(CutPlanRuntimeAnnotations, PlainAnnotationGoesUnderTypeChecking) {
  auto p = runtime_case("from p.money import Money\nclass Item:\n    price: Money\n");
  const auto* c = candidate(p, "p/models.py", 1);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->cuttable) << c->reason;
  EXPECT_EQ(c->type_checking, std::vector<std::string>{"Money"});
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"p/models.py:1"});
}

TEST(CutPlanRuntimeAnnotations, DefaultBaseClassAcrossAnImportAlias) {
  expect_pinned_for_runtime(
      runtime_case("from p.money import Money\nimport pydantic as pd\nclass Item(pd.BaseModel):\n    price: Money\n"),
      "`Item` (p/models.py:3) derives from `pydantic.BaseModel`");
}

TEST(CutPlanRuntimeAnnotations, FutureAnnotationsAndStringsDoNotHelp) {
  // The library evaluates the strings itself.
  expect_pinned_for_runtime(runtime_case("from p.money import Money\nfrom __future__ import annotations\n"
                                         "from pydantic import BaseModel\nclass Item(BaseModel):\n    price: Money\n"),
                            "derives from `pydantic.BaseModel`");
  expect_pinned_for_runtime(runtime_case("from p.money import Money\nfrom typing import NamedTuple\n"
                                         "class Item(NamedTuple):\n    price: 'Money'\n"),
                            "derives from `typing.NamedTuple`");
}

TEST(CutPlanRuntimeAnnotations, FirstPartyBaseInAnotherFileReadsThemInInitSubclass) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/base.py",
       "import typing\nclass Record:\n    def __init_subclass__(cls):\n        cls.f = _fields(cls)\n"
       "def _fields(cls):\n    return typing.get_type_hints(cls)\n"},
      {"p/mid.py", "from p.base import Record\nclass Entity(Record):\n    pass\n"},
      {"p/models.py", "from p.money import Money\nfrom p.mid import Entity\nclass Item(Entity):\n    price: Money\n"},
      {"p/money.py", "from p.models import Item\nclass Money: pass\ndef make() -> Item:\n    return Item()\n"},
  });
  expect_pinned_for_runtime(p, "`Item` (p/models.py:3) derives from `Entity`, and `Entity` (p/mid.py:2) derives from "
                               "`Record`, whose __init_subclass__ reads annotations at run time (p/base.py:3)");
}

TEST(CutPlanRuntimeAnnotations, MetaclassThatReadsAnnotations) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/meta.py", "class Meta(type):\n    def __new__(m, name, bases, ns):\n        ns.get('__annotations__')\n"
                    "        cls = super().__new__(m, name, bases, ns)\n        cls.__annotations__\n        return cls\n"},
      {"p/models.py", "from p.money import Money\nfrom p.meta import Meta\nclass Item(metaclass=Meta):\n    price: Money\n"},
      {"p/money.py", "from p.models import Item\nclass Money: pass\ndef make() -> Item:\n    return Item()\n"},
  });
  expect_pinned_for_runtime(p, "has metaclass `Meta`, whose __new__ reads annotations at run time (p/meta.py:2)");
}

TEST(CutPlanRuntimeAnnotations, DecoratedFunctionSignature) {
  expect_pinned_for_runtime(
      runtime_case("from p.money import Money\nfrom pydantic import validate_call\n"
                   "class Item: pass\n@validate_call\ndef pay(amount: Money) -> None:\n    pass\n"),
      "`pay` (p/models.py:5) is decorated with `@pydantic.validate_call`");
  // Without the decorator, the same signature is only for type checkers.
  auto p = runtime_case("from p.money import Money\nclass Item: pass\ndef pay(amount: Money) -> None:\n    pass\n");
  EXPECT_EQ(cut_sites(p), std::vector<std::string>{"p/models.py:1"});
}

TEST(CutPlanRuntimeAnnotations, SqlalchemyMappedColumns) {
  expect_pinned_for_runtime(
      runtime_case("from p.money import Money\nfrom sqlalchemy.orm import Mapped\nfrom p.db import Base\n"
                   "class Item(Base):\n    price: Mapped[Money]\n"),
      "`Item` (p/models.py:4) declares `Mapped[...]` columns");
}

TEST(CutPlanRuntimeAnnotations, ConfiguredBaseClassesAndDecorators) {
  const std::string models =
      "from p.money import Money\nfrom lib import Schema, typed\nclass Item(Schema):\n    price: Money\n";
  auto plain = runtime_case(models);
  EXPECT_EQ(cut_sites(plain), std::vector<std::string>{"p/models.py:1"});
  PlanOptions o;
  o.runtime.base_classes = {"lib.Schema"};
  expect_pinned_for_runtime(runtime_case(models, o), "derives from `lib.Schema`");
  PlanOptions d;
  d.runtime.decorators = {"app.get"};
  expect_pinned_for_runtime(
      runtime_case("from p.money import Money\nfrom p.web import app\nclass Item: pass\n"
                   "@app.get('/')\ndef pay(amount: Money) -> None:\n    pass\n", d),
      "is decorated with `@app.get`");
}

// --explain names what the simulations behind the plan assumed (issue 16).
TEST(CutPlan, ExplainNamesTheSimulatorsAssumptions) {
  auto p = plan_of({
      {"p/__init__.py", ""},
      {"p/a.py", "__import__('json')\nfrom p.b import fb\ndef fa():\n    return fb()\n"},
      {"p/b.py", "from p.a import fa\ndef fb():\n    return fa()\n"},
  });
  ASSERT_FALSE(p.plan.cuts.empty());
  std::ostringstream out;
  print_plan(out, p.a, p.cycles, p.plan);
  EXPECT_NE(out.str().find("assumed: 1 import-time dynamic import(s) of modules that are not first-party run no "
                           "first-party code (e.g. p/a.py:1 __import__('json'))"),
            std::string::npos)
      << out.str();
}

// PEP 810: with a 3.15 target a cut may be `lazy` in front of the statement,
// where CPython accepts it and no name is read at import time.
namespace {

PlanOptions target(int minor) {
  PlanOptions o;
  o.target_minor = minor;
  return o;
}

const std::string kLazyPartner = "from p.a import X\nLIMIT = X + 1\ndef helper():\n    return 1\n";

}  // namespace

TEST(CutPlanLazy, OnlyFromPython315) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"p/__init__.py", ""},
      {"p/a.py", "from p.b import helper\nX = 1\ndef f() -> int:\n    return helper()\n"},
      {"p/b.py", kLazyPartner},
  };
  auto old = plan_of(files, target(14));
  ASSERT_EQ(cut_sites(old), std::vector<std::string>{"p/a.py:1"});
  EXPECT_EQ(old.plan.candidates[old.plan.cuts[0]].strategy, Strategy::Defer);
  auto p = plan_of(files, target(15));
  ASSERT_EQ(cut_sites(p), std::vector<std::string>{"p/a.py:1"});
  const CandidateStatement& c = p.plan.candidates[p.plan.cuts[0]];
  EXPECT_EQ(c.strategy, Strategy::Lazy);
  EXPECT_EQ(c.cost, kCostChangedLine);
  EXPECT_TRUE(c.functions.empty());
  EXPECT_TRUE(c.type_checking.empty());
}

TEST(CutPlanLazy, AnnotationUsesNeedNoTypeCheckingEntry) {
  auto p = plan_of({{"p/__init__.py", ""},
                    {"p/a.py", "from p.b import helper\nX = 1\ndef f(h: helper) -> None:\n    pass\n"},
                    {"p/b.py", kLazyPartner}},
                   target(15));
  const CandidateStatement* c = candidate(p, "p/a.py", 1);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->cuttable);
  EXPECT_EQ(c->strategy, Strategy::Lazy);
}

TEST(CutPlanLazy, RefusedWhereCPythonRejectsItOrANameIsReadAtImport) {
  // In a try: a SyntaxError in 3.15 (and pinned for deferral too).
  auto in_try = plan_of({{"p/__init__.py", ""},
                         {"p/a.py", "try:\n    from p.b import helper\nexcept ImportError:\n    helper = None\n"
                                    "X = 1\ndef f():\n    return helper()\n"},
                         {"p/b.py", kLazyPartner}},
                        target(15));
  const CandidateStatement* c = candidate(in_try, "p/a.py", 2);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->cuttable);
  // Read at module level: a lazy import would be reified on the spot.
  auto read = plan_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import helper\nX = 1\nY = helper()\n"},
                       {"p/b.py", kLazyPartner}},
                      target(15));
  c = candidate(read, "p/a.py", 1);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->cuttable);
  EXPECT_NE(c->reason.find("used at import time"), std::string::npos) << c->reason;
  // Never used: the import may be there for its side effects, which lazy would drop.
  auto unused = plan_of({{"p/__init__.py", ""}, {"p/a.py", "from p.b import helper\nX = 1\n"}, {"p/b.py", kLazyPartner}},
                        target(15));
  c = candidate(unused, "p/a.py", 1);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->cuttable);
}

TEST(CutPlanLazy, AModuleLevelBlockCanOnlyBeCutByLazy) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"p/__init__.py", ""},
      {"p/a.py", "import sys\nif sys:\n    from p.b import helper\nX = 1\ndef f():\n    return helper()\n"},
      {"p/b.py", kLazyPartner},
  };
  const CandidateStatement* c = nullptr;
  auto old = plan_of(files, target(14));
  c = candidate(old, "p/a.py", 3);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->cuttable);
  EXPECT_NE(c->reason.find("module-level if"), std::string::npos) << c->reason;
  auto p = plan_of(files, target(15));
  c = candidate(p, "p/a.py", 3);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->cuttable);
  EXPECT_EQ(c->strategy, Strategy::Lazy);
}

// The simulator runs a lazified cut as CPython 3.15 runs `lazy from ...`: the
// names are proxies until read, so the loop's failure is gone.
TEST(CutPlanLazy, SimulatorRunsALazifiedCutAsLazy) {
  auto p = plan_of({{"p/__init__.py", ""},
                    {"p/a.py", "from p.b import helper\nX = 1\ndef f():\n    return helper()\n"},
                    {"p/b.py", kLazyPartner}},
                   target(15));
  ASSERT_EQ(p.plan.cuts.size(), 1u);
  const CandidateStatement& c = p.plan.candidates[p.plan.cuts[0]];
  DeferredImports d;
  d.lazified.insert({c.file, c.import});
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare}) {
    EXPECT_GT(simulate(p.a, m).failing(), 0u) << to_string(m);
    EXPECT_EQ(simulate(p.a, m, {}, d).failing(), 0u) << to_string(m);
  }
}
