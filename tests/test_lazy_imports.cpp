// PEP 810 `lazy import` / `lazy from ... import` (Python 3.15), read by
// blanking the soft keyword (blanking.hpp): what is accepted, what stays an
// ordinary name, and CPython 3.15.2's SyntaxError for misplaced ones (the
// messages were checked against the real interpreter).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "facts.hpp"
#include "facts_cache.hpp"

using namespace cyclefix;

namespace {

std::vector<std::string> problems(const ModuleFacts& f) {
  std::vector<std::string> out;
  for (const auto& p : f.syntax_problems) out.push_back(std::to_string(p.line) + ":" + std::to_string(p.column) + " " + p.message);
  return out;
}

}  // namespace

TEST(LazyImports, ModuleLevelStatementsAreLazyAndKeepTheirKeyword) {
  const std::string src = "import os\nlazy import json\nlazy from a.b import c as d, e\nlazy   import x.y as z\n";
  auto f = collect_facts(src);
  EXPECT_TRUE(f.syntax_problems.empty()) << testing::PrintToString(problems(f));
  ASSERT_EQ(f.imports.size(), 4u);
  EXPECT_FALSE(f.imports[0].is_lazy);
  EXPECT_FALSE(f.imports[0].has_lazy_keyword);
  for (int i = 1; i < 4; ++i) {
    EXPECT_TRUE(f.imports[i].is_lazy) << i;
    EXPECT_TRUE(f.imports[i].has_lazy_keyword) << i;
    EXPECT_EQ(f.imports[i].line, i + 1);
    EXPECT_EQ(src.substr(f.imports[i].stmt_begin, 4), "lazy");
    EXPECT_EQ(f.imports[i].span_begin, f.imports[i].stmt_begin);
  }
  EXPECT_EQ(f.imports[1].text, "lazy import json");
  EXPECT_EQ(f.imports[2].text, "lazy from a.b import c as d, e");
  EXPECT_EQ(f.imports[2].module, "a.b");
  EXPECT_EQ(f.imports[2].bound_names(), (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(f.imports[3].text, "lazy   import x.y as z");
  EXPECT_EQ(f.imports[3].context, ImportContext::ModuleLevel);
}

TEST(LazyImports, AcceptedInsideIfWithForWhileMatchAfterSemicolonAndContinuation) {
  const std::string src =
      "if x:\n    lazy import a\nelse:\n    lazy from b import c\n"
      "with m:\n    lazy import d\n"
      "for i in r:\n    lazy import e\n"
      "while w:\n    lazy import f\n"
      "match v:\n    case 1:\n        lazy import g\n"
      "y = 1; lazy import h\n"
      "if z: lazy import i\n"
      "lazy \\\n  import j\n"
      "lazy from . import k\n"
      "lazy from x import (l,\n    m)\n";
  auto f = collect_facts(src);
  EXPECT_TRUE(f.syntax_problems.empty()) << testing::PrintToString(problems(f));
  ASSERT_EQ(f.imports.size(), 11u);
  for (const auto& st : f.imports) {
    EXPECT_TRUE(st.is_lazy) << st.text;
    EXPECT_EQ(st.text.substr(0, 4), "lazy") << st.text;
  }
  EXPECT_EQ(f.imports[8].line, 16);  // the `lazy` line of a continued statement
  EXPECT_EQ(f.imports[8].text, "lazy \\\n  import j");
  EXPECT_EQ(f.imports[9].level, 1);
}

TEST(LazyImports, LazyStaysAnOrdinaryNameElsewhere) {
  const std::string src =
      "lazy = 1\nlazy(x)\nprint(lazy)\ndef lazy(): pass\nlazy import lazy\nfrom lazy import y\n"
      "s = '''\nlazy import json\n'''\n\"lazy import os\"\nx = lazy\nlazy .import_ = 2\n";
  auto f = collect_facts(src);
  EXPECT_TRUE(f.syntax_problems.empty()) << testing::PrintToString(problems(f));
  ASSERT_EQ(f.imports.size(), 2u);
  EXPECT_TRUE(f.imports[0].is_lazy);
  EXPECT_EQ(f.imports[0].names[0].name, "lazy");
  EXPECT_FALSE(f.imports[1].is_lazy);
  EXPECT_EQ(f.imports[1].module, "lazy");
}

TEST(LazyImports, MisplacedOnesGetCPythonsSyntaxError) {
  struct Case {
    std::string src;
    std::string want;
  } cases[] = {
      {"def f():\n    lazy import json\n", "2:5 SyntaxError: lazy import not allowed inside functions"},
      {"async def f():\n    lazy from a import b\n", "2:5 SyntaxError: lazy from ... import not allowed inside functions"},
      {"class C:\n    lazy import json\n", "2:5 SyntaxError: lazy import not allowed inside classes"},
      {"class C:\n    if x:\n        lazy import json\n", "3:9 SyntaxError: lazy import not allowed inside classes"},
      {"try:\n    lazy import json\nexcept ImportError:\n    pass\n",
       "2:5 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"try:\n    pass\nexcept:\n    lazy import json\n", "4:5 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"try:\n    pass\nfinally:\n    lazy import json\n", "4:5 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"try:\n    pass\nexcept E:\n    pass\nelse:\n    lazy import json\n",
       "6:5 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"try:\n    pass\nexcept* E:\n    lazy import json\n", "4:5 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"try:\n    if x:\n        lazy import json\nexcept:\n    pass\n",
       "3:9 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"def f():\n    try:\n        lazy import json\n    except:\n        pass\n",
       "3:9 SyntaxError: lazy import not allowed inside try/except blocks"},
      {"try:\n    def f():\n        lazy import json\nexcept:\n    pass\n",
       "3:9 SyntaxError: lazy import not allowed inside functions"},
      {"try:\n    lazy from json import *\nexcept:\n    pass\n",
       "2:5 SyntaxError: lazy from ... import not allowed inside try/except blocks"},
      {"lazy from json import *\n", "1:1 SyntaxError: lazy from ... import * is not allowed"},
      {"lazy from __future__ import annotations\n", "1:1 SyntaxError: lazy from __future__ import is not allowed"},
  };
  for (const auto& c : cases) {
    auto f = collect_facts(c.src);
    EXPECT_EQ(problems(f), std::vector<std::string>{c.want}) << c.src;
    for (const auto& st : f.imports) {
      EXPECT_FALSE(st.is_lazy) << c.src;
      EXPECT_TRUE(st.has_lazy_keyword) << c.src;
    }
  }
}

TEST(LazyImports, DunderLazyModulesMakesNamedAbsoluteImportsLazy) {
  const std::string src =
      "import a\n"  // above the list: eager
      "__lazy_modules__ = ['a', 'b.c', \"d\"]\n"
      "import a\nimport b.c as bc\nimport b\nfrom d import x\nfrom . import d\n"
      "try:\n    import a\nexcept ImportError:\n    pass\n"
      "def f():\n    import a\n"
      "if y:\n    from a import *\n    import a, b\n    import a, d\n";
  auto f = collect_facts(src);
  ASSERT_TRUE(f.lazy_modules);
  EXPECT_EQ(*f.lazy_modules, (std::vector<std::string>{"a", "b.c", "d"}));
  std::vector<bool> lazy;
  for (const auto& st : f.imports) lazy.push_back(st.is_lazy);
  EXPECT_EQ(lazy, (std::vector<bool>{false, true, true, false, true, false, false, false, false, false, true}));
  for (const auto& st : f.imports) EXPECT_FALSE(st.has_lazy_keyword);
}

TEST(LazyImports, FactsCacheKeepsLaziness) {
  auto f = collect_facts("__lazy_modules__ = ['m']\nlazy import json\nimport m\n");
  auto back = deserialise_facts(serialise_facts(f));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->imports.size(), 2u);
  EXPECT_TRUE(back->imports[0].is_lazy);
  EXPECT_TRUE(back->imports[0].has_lazy_keyword);
  EXPECT_TRUE(back->imports[1].is_lazy);
  EXPECT_FALSE(back->imports[1].has_lazy_keyword);
  ASSERT_TRUE(back->lazy_modules);
  EXPECT_EQ(*back->lazy_modules, std::vector<std::string>{"m"});
}

// `src` parses without a problem and reads exactly `dotted` from the import `m`.
static void expect_uses_of_m(const std::string& src, const std::vector<std::string>& dotted) {
  auto f = collect_facts(src);
  EXPECT_TRUE(f.syntax_problems.empty()) << testing::PrintToString(problems(f));
  std::vector<std::string> got;
  for (const auto& u : f.uses)
    if (u.name() == "m") got.push_back(u.dotted);
  EXPECT_EQ(got, dotted);
}

// PEP 750 template strings (Python 3.14), read by the same blanking: the `t`
// prefix is parsed as `f` (3 files of CPython 3.15's stdlib were syntax errors).
TEST(TemplateStrings, ParseAndTheirInterpolationsAreUses) {
  const std::string src =
      "import m\nx = t\"{m.a}\"\ny = rt'{m.b}'\nz = Tr\"\"\"{m.c!r:>{w}}\"\"\"\n"
      "s = \"don't\"\nc = 't'\nprint(t)\nat = 1\nu = at\n# t'in a comment'\n";
  expect_uses_of_m(src, {"m.a", "m.b", "m.c"});
  EXPECT_EQ(collect_facts(src).imports.size(), 1u);
}

// A format spec that starts with `=` (fill/align, `f"{x:=}"`), which
// tree-sitter-python 0.23.6 reads as a walrus: a real matplotlib file
// (axis.py) was a syntax error. A walrus that is one stays one.
TEST(FormatSpecs, EqualsAlignmentIsNotAWalrus) {
  const std::string src =
      "import m\ndef f(a):\n    raise TypeError(f\"{m.a:=} must be\")\ny = f'{m.b:=^9}'\nz = rf\"{m.c:=>4}\"\n"
      "w = f\"{(n := 3)}\"\nif (k := 2):\n    pass\nprint(f\"a\", {q := 1})\ns = \"{x:=}\"\n";
  expect_uses_of_m(src, {"m.a", "m.b", "m.c"});
}
