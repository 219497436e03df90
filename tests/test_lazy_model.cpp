// PEP 810 in the model: a lazy import binds proxies and imports on the first
// import-time read of a bound name; EntryMode::Lazy is `-X lazy_imports=all`.
// Each expectation was checked against CPython 3.15.2 by importing the same
// tree in a fresh interpreter (tests/lazy_cases/ runs such trees for real).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "in_memory.hpp"
#include "simulator.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;
using cyclefix::testing_support::entry;

namespace {

// Edges of the import-time graph as "a->b".
std::vector<std::string> edges(const Analysis& a) {
  std::vector<std::string> out;
  for (const ImportEdge& e : a.graph.edges()) out.push_back(a.modules[e.from].name + "->" + a.modules[e.to].name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// The first example: the lazy name is only read in a function body.
TEST(LazyModel, UnusedLazyImportIsNoEdgeAndNoFailure) {
  auto a = analysis_of({{"a.py", "lazy from b import g\ndef f():\n    return g()\n"},
                        {"b.py", "from a import f\ndef g():\n    return 1\n"}});
  EXPECT_EQ(edges(a), std::vector<std::string>{"b->a"});
  for (EntryMode m : {EntryMode::Normal, EntryMode::Bare, EntryMode::Lazy}) {
    auto r = simulate(a, m);
    EXPECT_EQ(r.failing(), 0u) << to_string(m);
    EXPECT_EQ(r.uncertain(), 0u) << to_string(m);
  }
}

// Read at import time (module level, class body, decorator, default value, or
// a body called at import): an edge, and b's `from a import f` meets a partial a.
TEST(LazyModel, ImportTimeReadReifiesWhereItHappens) {
  const std::string b = "from a import f\ndef g():\n    return 1\n";
  for (const std::string& a_src : {
           std::string("lazy from b import g\nx = g()\ndef f():\n    pass\n"),
           std::string("lazy from b import g\nclass C:\n    y = g\ndef f():\n    pass\n"),
           std::string("lazy from b import g\n@g\ndef h():\n    pass\ndef f():\n    pass\n"),
           std::string("lazy from b import g\ndef h(n=g):\n    pass\ndef f():\n    pass\n"),
           std::string("lazy from b import g\ndef h():\n    return g()\nh()\ndef f():\n    pass\n"),
       }) {
    auto a = analysis_of({{"a.py", a_src}, {"b.py", b}});
    EXPECT_EQ(edges(a), (std::vector<std::string>{"a->b", "b->a"})) << a_src;
    auto r = simulate(a, EntryMode::Normal);
    const auto& ea = entry(a, r, "a");
    EXPECT_TRUE(ea.fails && ea.circular) << a_src;
    EXPECT_EQ(ea.message,
              "cannot import name 'f' from partially initialized module 'a' (most likely due to a "
              "circular import) (a.py)")
        << a_src;
    // In lazy entry b's own import is lazy as well: nothing fails.
    EXPECT_EQ(simulate(a, EntryMode::Lazy).failing(), 0u) << a_src;
  }
}

// `from m import n` of a proxy bound in m reifies it (CPython 3.15.2 does).
TEST(LazyModel, FromImportOfAProxyReifiesIt) {
  auto a = analysis_of({{"h.py", "lazy from f import v\n"},
                        {"f.py", "from i import W\nv = W\n"},
                        {"i.py", "from h import v\nW = 1\n"}});
  auto r = simulate(a, EntryMode::Normal);
  EXPECT_FALSE(entry(a, r, "h").fails);
  EXPECT_TRUE(entry(a, r, "f").fails);  // f -> i -> h -> (reify v) f is partial: no W... v
  EXPECT_TRUE(entry(a, r, "i").fails);
}

// ... and that makes the lazy import an edge of the graph: h -> f.
TEST(LazyModel, ProxyTakenByAnotherModuleIsAnEdge) {
  auto a = analysis_of({{"h.py", "lazy from f import v\n"},
                        {"f.py", "from i import W\nv = W\n"},
                        {"i.py", "from h import v\nW = 1\n"}});
  EXPECT_EQ(edges(a), (std::vector<std::string>{"f->i", "h->f", "i->h"}));
  auto unread = analysis_of({{"h.py", "lazy from f import v\n"}, {"f.py", "v = 1\n"}});
  EXPECT_TRUE(edges(unread).empty());
}

// __lazy_modules__ above the import makes it lazy; below it, not.
TEST(LazyModel, DunderLazyModules) {
  auto lazy = analysis_of({{"a.py", "__lazy_modules__ = ['b']\nfrom b import g\ndef f():\n    return g()\n"},
                           {"b.py", "from a import f\ndef g():\n    return 1\n"}});
  EXPECT_EQ(simulate(lazy, EntryMode::Normal).failing(), 0u);
  auto eager = analysis_of({{"a.py", "from b import g\n__lazy_modules__ = ['b']\ndef f():\n    return g()\n"},
                            {"b.py", "from a import f\ndef g():\n    return 1\n"}});
  EXPECT_EQ(simulate(eager, EntryMode::Normal).failing(), 2u);
}

// Lazy entry leaves imports in a try, in a class body and star imports eager.
TEST(LazyModel, LazyEntryKeepsTryClassAndStarImportsEager) {
  auto a = analysis_of({{"c.py", "try:\n    from d import D\nfinally:\n    pass\nC = 1\n"},
                        {"d.py", "from c import C\nD = C\n"},
                        {"e.py", "class K:\n    from f import F\nE = 1\n"},
                        {"f.py", "from e import E\nF = E\n"}});
  auto r = simulate(a, EntryMode::Lazy);
  EXPECT_TRUE(entry(a, r, "c").fails);  // c's try import runs d, whose read of C reifies into partial c
  EXPECT_TRUE(entry(a, r, "d").fails);
  EXPECT_TRUE(entry(a, r, "e").fails);
  EXPECT_TRUE(entry(a, r, "f").fails);
  EXPECT_EQ(r.uncertain(), 0u);
}
