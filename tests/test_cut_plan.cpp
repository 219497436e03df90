// Choosing the cuts on in-memory packages: cuttability with reasons, and the
// seed's lessons 1 and 2.

#include <gtest/gtest.h>

#include "cut_plan.hpp"
#include "in_memory.hpp"

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
  EXPECT_DOUBLE_EQ(p.plan.cost, kCostPerStatement + kCostPerFunction);
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
  EXPECT_NE(pinned->reason.find("Verifier.__init__(), which module-level code calls"), std::string::npos)
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
  EXPECT_DOUBLE_EQ(a->cost, kCostPerStatement + kCostPerTypeCheckingEntry);
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
