// The rewrite stage on in-memory packages: EditSet rules, unified diff layout,
// and the rewriters' output for the constructs that decide correctness. The
// golden suite (golden/, tests/golden/run_case.py) covers the same end to end
// with files, git apply and python3.

#include <gtest/gtest.h>

#include "cut_plan.hpp"
#include "edit_set.hpp"
#include "in_memory.hpp"
#include "rewrite.hpp"
#include "rewriter.hpp"
#include "source_text.hpp"
#include "unified_diff.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;

namespace {

TEST(EditSet, RefusesOverlapsAndNamesThem) {
  EditSet s;
  std::string err;
  ASSERT_TRUE(s.add({2, 3, "x"}, &err));
  EXPECT_FALSE(s.add({4, 2, "y"}, &err));
  EXPECT_NE(err.find("overlaps"), std::string::npos) << err;
  EXPECT_FALSE(s.add({3, 0, "inside"}, &err));  // an insertion strictly inside a replacement
  EXPECT_TRUE(s.add({2, 0, "before"}, &err));   // at its start: fine
  EXPECT_TRUE(s.add({5, 0, "after"}, &err));    // at its end: fine
  EXPECT_TRUE(s.add({2, 3, "x"}, &err));        // identical: accepted once
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.apply("0123456789"), "01beforexafter56789");
}

TEST(EditSet, InsertionsAtOneOffsetKeepTheirOrderAndComeBeforeAReplacement) {
  EditSet s;
  std::string err;
  ASSERT_TRUE(s.add({1, 1, "R"}, &err));
  ASSERT_TRUE(s.add({1, 0, "a"}, &err));
  ASSERT_TRUE(s.add({1, 0, "b"}, &err));
  EXPECT_EQ(s.apply("xyz"), "xabRz");
}

TEST(EditSet, AddAllIsAllOrNothing) {
  EditSet s;
  std::string err;
  ASSERT_TRUE(s.add({0, 2, ""}, &err));
  EXPECT_FALSE(s.add_all({{5, 0, "ok"}, {1, 1, "clash"}}, &err));
  EXPECT_EQ(s.size(), 1u);  // the first edit of the refused batch did not stay
}

TEST(UnifiedDiff, HunksCountsAndContext) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) a += "l" + std::to_string(i) + "\n";
  b = a;
  b.replace(b.find("l10\n"), 4, "L10\n");
  std::string d = unified_diff(a, b, "p.py");
  EXPECT_EQ(d,
            "--- a/p.py\n+++ b/p.py\n@@ -7,7 +7,7 @@\n l7\n l8\n l9\n-l10\n+L10\n l11\n l12\n l13\n");
  EXPECT_EQ(unified_diff(a, a, "p.py"), "");
}

TEST(UnifiedDiff, MissingFinalNewlineAndCrlf) {
  std::string d = unified_diff("a\r\nb", "a\r\nc", "w.py");
  EXPECT_EQ(d, "--- a/w.py\n+++ b/w.py\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
  std::string e = unified_diff("", "x\n", "n.py");
  EXPECT_EQ(e, "--- a/n.py\n+++ b/n.py\n@@ -0,0 +1 @@\n+x\n");
}

// Plans and rewrites in-memory files; returns the new text of `file`.
struct Rewritten {
  Analysis a;
  CutPlan plan;
  RewriteResult result;
  std::string after(const std::string& file) const {
    for (const auto& fr : result.files)
      if (a.files[fr.file].source.display == file) return fr.after;
    return "<unchanged>";
  }
};

Rewritten rewrite_of(const std::vector<std::pair<std::string, std::string>>& files, RewriteOptions ro = {},
                     PlanOptions po = {}) {
  Rewritten r{analysis_of(files), {}, {}};
  CycleReport cycles = build_cycle_report(r.a, 100);
  r.plan = plan_cuts(r.a, cycles, po);
  std::vector<std::string> sources;
  for (const auto& f : files) sources.push_back(f.second);
  r.result = rewrite(r.a, cycles, r.plan, ro, &sources);
  return r;
}

RewriteOptions no_note() {
  RewriteOptions o;
  o.note = false;
  return o;
}

// b is pinned (module-level use of a.A), so the cut lands in a.
const std::pair<std::string, std::string> kB = {"p/b.py", "from p.a import A\n\nX = A\n\ndef x(): pass\ndef y(): pass\n"};

TEST(Rewrite, MultiNameImportSplitsPerFunction) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x, y\n\nclass A: pass\n\ndef f():\n    return x()\n\ndef g():\n    return y()\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"),
            "class A: pass\n\ndef f():\n    from p.b import x\n    return x()\n\ndef g():\n    from p.b import y\n    return y()\n");
}

TEST(Rewrite, NestedBodyUnderAFunctionThatImportsGetsNoSecondImport) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x\n\nclass A: pass\n\ndef f():\n    def inner():\n        return x()\n    return x, inner\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"),
            "class A: pass\n\ndef f():\n    from p.b import x\n    def inner():\n        return x()\n    return x, inner\n");
}

TEST(Rewrite, ShadowingFunctionGetsNoImportAndDocstringStaysFirst) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x\n\nclass A: pass\n\ndef f(x):\n    return x\n\ndef g():\n    \"\"\"Doc.\"\"\"\n    return x()\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"),
            "class A: pass\n\ndef f(x):\n    return x\n\ndef g():\n    \"\"\"Doc.\"\"\"\n    from p.b import x\n    return x()\n");
}

TEST(Rewrite, OneLineBodyIsSplit) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x\nclass A: pass\ndef f(): return x()\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"), "class A: pass\ndef f():\n    from p.b import x\n    return x()\n");
}

TEST(Rewrite, AnnotationOnlyNameGoesUnderTypeCheckingQuotedWithoutFutureImport) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from typing import Optional\n\nfrom p.b import x\n\nclass A: pass\n\ndef f(v: Optional[x] = None) -> x | None:\n    return v\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"),
            "from typing import TYPE_CHECKING, Optional\n\nif TYPE_CHECKING:\n    from p.b import x\n\nclass A: pass\n\n"
            "def f(v: \"Optional[x]\" = None) -> \"x | None\":\n    return v\n");
}

TEST(Rewrite, FutureAnnotationsNeedNoQuotesAndExistingBlockIsReused) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nfrom p.b import x\n\nif TYPE_CHECKING:\n    import os\n\nclass A: pass\n\ndef f(v: x) -> None:\n    return None\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"),
            "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import os\n    from p.b import x\n\n"
            "class A: pass\n\ndef f(v: x) -> None:\n    return None\n");
}

TEST(Rewrite, ImportTypingIsUsedForTheTest) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "import typing\nfrom p.b import x\n\nclass A: pass\n\ndef f(v: \"x\"):\n    return x\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"),
            "import typing\n\nif typing.TYPE_CHECKING:\n    from p.b import x\n\nclass A: pass\n\n"
            "def f(v: \"x\"):\n    from p.b import x\n    return x\n");
}

TEST(Rewrite, SemicolonNeighboursStay) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "import os; from p.b import x; import sys\nclass A: pass\ndef f():\n    return x, os, sys\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"), "import os; import sys\nclass A: pass\ndef f():\n    from p.b import x\n    return x, os, sys\n");
}

TEST(Rewrite, CommentsTravelAndNoteNamesTheLoop) {
  RewriteOptions o;
  o.noqa = true;
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "# the helper\nfrom p.b import x  # keep\n\nclass A: pass\n\ndef f():\n    return x()\n"},
                       kB},
                      o);
  EXPECT_EQ(r.after("p/a.py"),
            "class A: pass\n\ndef f():\n    # the helper\n    # Deferred: import cycle p.a -> p.b -> p.a\n"
            "    from p.b import x  # keep  # noqa: PLC0415  # pylint: disable=import-outside-toplevel\n    return x()\n");
}

TEST(Rewrite, CrlfAndTabsAreKept) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x\r\n\r\nclass A:\r\n\tpass\r\n\r\ndef f():\r\n\treturn x()\r\n"},
                       kB},
                      no_note());
  EXPECT_EQ(r.after("p/a.py"), "class A:\r\n\tpass\r\n\r\ndef f():\r\n\tfrom p.b import x\r\n\treturn x()\r\n");
}

TEST(Rewrite, RewrittenTreeHasNoCycleAndASecondRunIsEmpty) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"p/__init__.py", ""},
      {"p/a.py", "from p.b import x\n\nclass A: pass\n\ndef f():\n    return x()\n"},
      kB};
  auto r = rewrite_of(files, {});
  ASSERT_EQ(r.result.files.size(), 1u);
  Analysis after = analysis_after(r.a, r.result);
  EXPECT_TRUE(build_cycle_report(after, 100).components.empty());
  files[1].second = r.after("p/a.py");
  auto again = rewrite_of(files, {});
  EXPECT_TRUE(again.result.files.empty());
  EXPECT_TRUE(again.result.problems.empty());
}

// analysis_after() takes the files' facts from the analysis it starts from
// (no copy of the largest part of a large analysis); that one keeps only its
// import statements, which split patches and the HTML report still read.
TEST(Rewrite, AnalysisAfterMovesTheFactsAndLeavesTheImports) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x\n\nclass A: pass\n\ndef f():\n    return x()\n"},
                       kB},
                      {});
  ASSERT_EQ(r.result.files.size(), 1u);
  std::vector<ModuleFacts> before;
  for (const auto& fa : r.a.files) before.push_back(fa.facts);
  Analysis after = analysis_after(r.a, r.result);
  for (std::size_t i = 0; i < r.a.files.size(); ++i) {
    const ModuleFacts& kept = r.a.files[i].facts;
    ASSERT_EQ(kept.imports.size(), before[i].imports.size()) << i;
    for (std::size_t k = 0; k < kept.imports.size(); ++k) EXPECT_EQ(kept.imports[k].text, before[i].imports[k].text);
    EXPECT_TRUE(kept.uses.empty() && kept.events.empty() && kept.functions.empty()) << i;
    if (i == r.result.files[0].file) continue;  // collected again from its new text
    EXPECT_EQ(after.files[i].facts.uses.size(), before[i].uses.size()) << i;
    EXPECT_EQ(after.files[i].facts.events.size(), before[i].events.size()) << i;
    EXPECT_EQ(after.files[i].facts.functions.size(), before[i].functions.size()) << i;
  }
  // The resolved imports and the reachability move (after computes them again)...
  EXPECT_TRUE(r.a.reach.runs.empty());
  for (std::size_t i = 0; i < r.a.files.size(); ++i) {
    EXPECT_TRUE(r.a.files[i].resolved.empty()) << i;
    EXPECT_EQ(after.files[i].resolved.size(), after.files[i].facts.imports.size()) << i;
  }
  // ... and the graph stays: split patches and the HTML report read it.
  EXPECT_FALSE(r.a.graph.edges().empty());
}

// Without keep_for_reports (a plain text run of the main command) the analysis
// it starts from keeps none of the files' facts and no graph: on 50,000 files
// the import statements alone are 250 MB.
TEST(Rewrite, AnalysisAfterWithoutReportsLeavesNoFactsOrGraph) {
  auto r = rewrite_of({{"p/__init__.py", ""},
                       {"p/a.py", "from p.b import x\n\nclass A: pass\n\ndef f():\n    return x()\n"},
                       kB},
                      {});
  ASSERT_EQ(r.result.files.size(), 1u);
  Analysis after = analysis_after(r.a, r.result, 1, false);
  std::size_t imports_after = 0;
  for (std::size_t i = 0; i < r.a.files.size(); ++i) {
    EXPECT_TRUE(r.a.files[i].facts.imports.empty()) << i;
    imports_after += after.files[i].facts.imports.size();
  }
  EXPECT_GT(imports_after, 0u);
  EXPECT_TRUE(r.a.graph.edges().empty());
  EXPECT_FALSE(after.graph.edges().empty());
  EXPECT_TRUE(build_cycle_report(after, 100).components.empty());
}

}  // namespace

// The layout of an import statement cyclefix writes (rewriters/table.cpp).
TEST(WrapImport, OneLineWhenItFitsElseTheLayoutWithFewerLines) {
  const std::vector<std::string> names{"alpha", "beta as b", "gamma"};
  // Fits (37 characters at column 4 in 41): one line; width 0: never wrapped.
  EXPECT_EQ(wrap_import("from m import ", names, {4, 41}), "from m import alpha, beta as b, gamma");
  EXPECT_EQ(wrap_import("from m import ", names, {40, 0}), "from m import alpha, beta as b, gamma");
  // Aligned after "(" when a hanging indent takes as many lines; continuation
  // lines counted from the statement's column.
  EXPECT_EQ(wrap_import("from m import ", names, {0, 34}), "from m import (alpha, beta as b,\n               gamma)");
  EXPECT_EQ(wrap_import("from m import ", names, {8, 42}), "from m import (alpha, beta as b,\n               gamma)");
  // Narrower: aligned would take three lines, a hanging indent two.
  EXPECT_EQ(wrap_import("from m import ", names, {0, 30}), "from m import (\n    alpha, beta as b, gamma)");
  // A long head: a hanging indent takes fewer lines.
  const std::string head = "from a_rather_long.package_path.module import ";
  EXPECT_EQ(wrap_import(head, names, {0, 60}), head + "(\n    alpha, beta as b, gamma)");
  // One name is never wrapped, however long.
  EXPECT_EQ(wrap_import(head, {"alpha"}, {0, 20}), head + "alpha");
}

TEST(WrapImport, InPlaceLinesTakeTheFilesNewlineAndIndent) {
  EXPECT_EQ(text::continue_lines("from m import (a,\n               b)", "\r\n", "    "),
            "from m import (a,\r\n                   b)");
  EXPECT_EQ(text::continue_lines("one line", "\r\n", "\t"), "one line");
  // The part of a statement that stays, in a CRLF file inside a block.
  auto a = analysis_of({{"pkg/__init__.py", ""},
                        {"pkg/a.py", "if True:\r\n    from pkg.b import first_name, second_name, third_name\r\n"}});
  const FileAnalysis* fa = nullptr;
  for (const auto& f : a.files)
    if (f.source.module == "pkg.a") fa = &f;
  ASSERT_NE(fa, nullptr);
  const std::string src = "if True:\r\n    from pkg.b import first_name, second_name, third_name\r\n";
  Edit e = statement_removal(src, fa->facts.imports.at(0), {"third_name"}, 40);
  EXPECT_EQ(e.text, "from pkg.b import (first_name,\r\n                       second_name)");
}

TEST(PragmaComment, TheCommentsThatBindToTheirLine) {
  for (const char* c : {"# type: ignore", "# type: ignore[attr-defined]", "#noqa", "# noqa: F401", "# NOQA",
                        "# pylint: disable=unused-import", "# pyright: ignore", "# isort: skip", "# nosec"})
    EXPECT_TRUE(is_pragma_comment(c)) << c;
  for (const char* c : {"# the check helpers", "#", "# types are ignored here", "type: ignore"})
    EXPECT_FALSE(is_pragma_comment(c)) << c;
}
