// The import-time graph: merging edges, cyclic components, covering loops.
// Graphs are built by hand (and once from resolved statements); no files.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "import_graph.hpp"
#include "module_index.hpp"

namespace cyclefix {
namespace {

std::vector<ModuleInfo> named(const std::vector<std::string>& names) {
  std::vector<ModuleInfo> out;
  for (const auto& n : names) out.push_back(ModuleInfo{n, false, false, 0, n + ".py"});
  return out;
}

// Module i is named by `names[i]`; edges given by name.
struct TestGraph {
  std::vector<ModuleInfo> modules;
  ImportGraph graph;

  TestGraph(const std::vector<std::string>& names, const std::vector<std::pair<std::string, std::string>>& edges)
      : modules(named(names)), graph(names.size()) {
    int line = 1;
    for (const auto& [from, to] : edges) graph.add(id(from), id(to), StatementRef{0, line, line, EdgeReason::Executes}), ++line;
    graph.finish();
  }
  ModuleId id(const std::string& name) const {
    for (std::size_t i = 0; i < modules.size(); ++i)
      if (modules[i].name == name) return static_cast<ModuleId>(i);
    ADD_FAILURE() << "no module " << name;
    return 0;
  }
  std::vector<std::vector<std::string>> components() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& c : cyclic_components(graph)) {
      std::vector<std::string> names;
      for (ModuleId m : c) names.push_back(modules[m].name);
      out.push_back(names);
    }
    return out;
  }
  ComponentLoops loops(std::size_t max_loops = 100) const {
    auto comps = cyclic_components(graph);
    EXPECT_EQ(comps.size(), 1u);
    if (comps.empty()) return {};
    return component_loops(graph, comps[0], modules, max_loops);
  }
  std::vector<std::string> render(const ComponentLoops& cl) const {
    std::vector<std::string> out;
    for (const auto& loop : cl.loops) {
      std::string s;
      for (ModuleId m : loop.modules) s += (s.empty() ? "" : " -> ") + modules[m].name;
      out.push_back(s);
    }
    return out;
  }
};

// A loop is a simple cycle whose edges are real graph edges between its hops,
// rotated so its smallest-name module comes first.
void expect_valid_loop(const ImportGraph& g, const std::vector<ModuleInfo>& modules, const Loop& loop) {
  ASSERT_GE(loop.modules.size(), 3u);
  ASSERT_EQ(loop.modules.size(), loop.edges.size() + 1);
  EXPECT_EQ(loop.modules.front(), loop.modules.back());
  std::set<ModuleId> distinct(loop.modules.begin(), loop.modules.end() - 1);
  EXPECT_EQ(distinct.size(), loop.edges.size());
  for (std::size_t i = 0; i < loop.edges.size(); ++i) {
    const ImportEdge& e = g.edges()[loop.edges[i]];
    EXPECT_EQ(e.from, loop.modules[i]);
    EXPECT_EQ(e.to, loop.modules[i + 1]);
    EXPECT_LE(modules[loop.modules.front()].name, modules[loop.modules[i]].name);
  }
}

using Strings = std::vector<std::string>;

TEST(ImportGraph, ParallelEdgesAreMerged) {
  ImportGraph g(2);
  g.add(0, 1, {0, 3, 30, EdgeReason::NameFrom});
  g.add(0, 1, {0, 1, 10, EdgeReason::Executes});
  g.add(0, 1, {0, 1, 10, EdgeReason::Executes});  // the same statement twice
  g.add(1, 0, {1, 0, 5, EdgeReason::Executes});
  g.finish();
  ASSERT_EQ(g.edges().size(), 2u);
  const ImportEdge* e = g.find(0, 1);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->statements.size(), 2u);
  EXPECT_EQ(e->statements[0].line, 10);
  EXPECT_EQ(e->statements[1].line, 30);
  EXPECT_EQ(e->statements[1].reason, EdgeReason::NameFrom);
  EXPECT_EQ(g.find(1, 0)->statements.size(), 1u);
}

TEST(ImportGraph, SelfEdgeIsIgnored) {
  ImportGraph g(2);
  g.add(1, 1, {0, 0, 1, EdgeReason::Executes});
  g.finish();
  EXPECT_TRUE(g.edges().empty());
  EXPECT_EQ(g.find(1, 1), nullptr);
  EXPECT_TRUE(cyclic_components(g).empty());
}

TEST(ImportGraph, OutEdgesSortedByTargetAfterFinish) {
  ImportGraph g(4);
  g.add(0, 3, {});
  g.add(0, 1, {});
  g.add(0, 2, {});
  g.finish();
  std::vector<ModuleId> targets;
  for (std::size_t e : g.out_edges(0)) targets.push_back(g.edges()[e].to);
  EXPECT_EQ(targets, (std::vector<ModuleId>{1, 2, 3}));
  EXPECT_TRUE(g.out_edges(3).empty());
  EXPECT_EQ(g.find(3, 0), nullptr);
}

TEST(ImportGraph, GrowsForModulesBeyondTheInitialCount) {
  ImportGraph g;
  g.add(2, 5, {});
  g.finish();
  EXPECT_EQ(g.module_count(), 6u);
  EXPECT_NE(g.find(2, 5), nullptr);
}

TEST(ImportGraph, DagHasNoCyclicComponents) {
  TestGraph t({"a", "b", "c", "d"}, {{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}});
  EXPECT_TRUE(t.components().empty());
}

TEST(ImportGraph, TwoCycleIsOneComponent) {
  TestGraph t({"a", "b", "c"}, {{"a", "b"}, {"b", "a"}, {"b", "c"}});
  EXPECT_EQ(t.components(), (std::vector<Strings>{{"a", "b"}}));
  auto cl = t.loops();
  EXPECT_EQ(t.render(cl), (Strings{"a -> b -> a"}));
  EXPECT_EQ(cl.edges_in_component, 2u);
  EXPECT_EQ(cl.edges_covered, 2u);
  EXPECT_FALSE(cl.capped);
}

TEST(ImportGraph, TwoComponentsSortedByFirstMember) {
  TestGraph t({"a", "b", "c", "d", "e", "f"},
              {{"f", "d"}, {"d", "f"}, {"e", "b"}, {"b", "a"}, {"a", "e"}, {"a", "c"}, {"c", "d"}});
  EXPECT_EQ(t.components(), (std::vector<Strings>{{"a", "b", "e"}, {"d", "f"}}));
}

TEST(ImportGraph, FigureEightLoopsCoverEveryEdge) {
  TestGraph t({"a", "b", "c"}, {{"a", "b"}, {"b", "a"}, {"a", "c"}, {"c", "a"}});
  auto cl = t.loops();
  EXPECT_EQ(t.render(cl), (Strings{"a -> b -> a", "a -> c -> a"}));
  EXPECT_EQ(cl.edges_in_component, 4u);
  EXPECT_EQ(cl.edges_covered, 4u);
  EXPECT_FALSE(cl.capped);
  for (const auto& loop : cl.loops) expect_valid_loop(t.graph, t.modules, loop);
}

TEST(ImportGraph, ShortestLoopFirstAndRotatedToSmallestName) {
  // Ring a -> b -> c -> d -> a with the chord c -> a.
  TestGraph t({"a", "b", "c", "d"}, {{"c", "d"}, {"d", "a"}, {"a", "b"}, {"b", "c"}, {"c", "a"}});
  auto cl = t.loops();
  EXPECT_EQ(t.render(cl), (Strings{"a -> b -> c -> a", "a -> b -> c -> d -> a"}));
  EXPECT_EQ(cl.edges_covered, 5u);
  for (const auto& loop : cl.loops) expect_valid_loop(t.graph, t.modules, loop);
}

TEST(ImportGraph, LoopsAreTheSameForAnyInsertionOrder) {
  std::vector<std::pair<std::string, std::string>> edges = {
      {"a", "b"}, {"b", "c"}, {"c", "a"}, {"c", "d"}, {"d", "b"}, {"d", "e"}, {"e", "a"}, {"b", "e"}};
  TestGraph first({"a", "b", "c", "d", "e"}, edges);
  const auto expected = first.render(first.loops());
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(edges.begin(), edges.end(), rng);
    TestGraph t({"a", "b", "c", "d", "e"}, edges);
    EXPECT_EQ(t.render(t.loops()), expected);
  }
  // Module ids in another order than names: output still follows names.
  TestGraph permuted({"e", "c", "a", "d", "b"}, edges);
  EXPECT_EQ(permuted.render(permuted.loops()), expected);
}

TEST(ImportGraph, CapIsRespectedAndReported) {
  // Complete graph on 5 modules: 20 edges, more loops needed than the cap.
  std::vector<std::string> names = {"a", "b", "c", "d", "e"};
  std::vector<std::pair<std::string, std::string>> edges;
  for (const auto& u : names)
    for (const auto& v : names)
      if (u != v) edges.push_back({u, v});
  TestGraph t(names, edges);
  auto capped = t.loops(3);
  EXPECT_EQ(capped.loops.size(), 3u);
  EXPECT_TRUE(capped.capped);
  EXPECT_EQ(capped.edges_in_component, 20u);
  EXPECT_LT(capped.edges_covered, 20u);
  auto none = t.loops(0);
  EXPECT_TRUE(none.loops.empty());
  EXPECT_TRUE(none.capped);
  EXPECT_EQ(none.edges_covered, 0u);
  auto full = t.loops(100);
  EXPECT_FALSE(full.capped);
  EXPECT_EQ(full.edges_covered, 20u);
  EXPECT_EQ(full.loops.size(), 10u);  // every edge's shortest loop is a 2-cycle
}

TEST(ImportGraph, LoopsStayInsideTheComponent) {
  // c -> d -> c is a separate component reachable from the a/b cycle.
  TestGraph t({"a", "b", "c", "d"}, {{"a", "b"}, {"b", "a"}, {"b", "c"}, {"c", "d"}, {"d", "c"}});
  auto comps = cyclic_components(t.graph);
  ASSERT_EQ(comps.size(), 2u);
  auto cl = component_loops(t.graph, comps[0], t.modules, 100);
  EXPECT_EQ(t.render(cl), (Strings{"a -> b -> a"}));
  EXPECT_EQ(cl.edges_in_component, 2u);
}

// Builds the graph the way the pipeline does: resolve each module-level
// statement and add an edge per target.
struct ResolvedGraph {
  ModuleIndex index;
  ImportGraph graph;

  explicit ResolvedGraph(const std::vector<std::pair<std::string, bool>>& modules) {
    for (const auto& [name, package] : modules) index.add(ModuleInfo{name, package, false, 0, name});
    graph = ImportGraph(index.size());
  }
  void add(const std::string& importer, const ImportStatement& stmt) {
    ModuleId from = *index.find(importer);
    for (const auto& t : index.resolve(from, stmt).targets)
      graph.add(from, t.module, StatementRef{static_cast<int>(from), 0, stmt.line, t.reason});
  }
};

ImportStatement from_import(std::string module, std::string name) {
  ImportStatement s;
  s.is_from = true;
  s.module = std::move(module);
  s.names.push_back({std::move(name), ""});
  s.line = 1;
  return s;
}

ImportStatement plain_import(std::string module) {
  ImportStatement s;
  s.names.push_back({std::move(module), ""});
  s.line = 1;
  return s;
}

TEST(ImportGraph, NoFalseCycleThroughAncestors) {
  // pkg/__init__.py:          from pkg.util.version import VERSION
  // pkg/util/version.py:      import pkg.util.regex
  // pkg/util/regex.py:        (nothing)
  // version's ancestors pkg and pkg.util are already loading: no edge back to them.
  ResolvedGraph r({{"pkg", true}, {"pkg.util", true}, {"pkg.util.regex", false}, {"pkg.util.version", false}});
  r.add("pkg", from_import("pkg.util.version", "VERSION"));
  r.add("pkg.util.version", plain_import("pkg.util.regex"));
  r.graph.finish();
  EXPECT_NE(r.graph.find(*r.index.find("pkg"), *r.index.find("pkg.util.version")), nullptr);
  EXPECT_NE(r.graph.find(*r.index.find("pkg.util.version"), *r.index.find("pkg.util.regex")), nullptr);
  EXPECT_TRUE(cyclic_components(r.graph).empty());
}

TEST(ImportGraph, NameFromAncestorClosesARealCycle) {
  // As above, but regex needs a name from pkg: pkg -> version -> regex -> pkg.
  ResolvedGraph r({{"pkg", true}, {"pkg.util", true}, {"pkg.util.regex", false}, {"pkg.util.version", false}});
  r.add("pkg", from_import("pkg.util.version", "VERSION"));
  r.add("pkg.util.version", plain_import("pkg.util.regex"));
  r.add("pkg.util.regex", from_import("pkg", "FLAGS"));
  r.graph.finish();
  auto comps = cyclic_components(r.graph);
  ASSERT_EQ(comps.size(), 1u);
  auto cl = component_loops(r.graph, comps[0], r.index.modules(), 100);
  ASSERT_EQ(cl.loops.size(), 1u);
  std::string s;
  for (ModuleId m : cl.loops[0].modules) s += (s.empty() ? "" : " -> ") + r.index[m].name;
  EXPECT_EQ(s, "pkg -> pkg.util.version -> pkg.util.regex -> pkg");
}

TEST(ImportGraph, LargeComponentIsFullyCovered) {
  // 2,000 modules on a ring plus random chords: one strongly connected
  // component with 10,000 edges. Checks coverage, not time.
  constexpr std::size_t kModules = 2000, kEdges = 10000;
  std::vector<ModuleInfo> modules;
  for (std::size_t i = 0; i < kModules; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "pkg.m%04zu", i);
    modules.push_back(ModuleInfo{name, false, false, 0, name});
  }
  ImportGraph g(kModules);
  int line = 0;
  for (std::size_t i = 0; i < kModules; ++i)
    g.add(static_cast<ModuleId>(i), static_cast<ModuleId>((i + 1) % kModules), {0, line, ++line, EdgeReason::Executes});
  std::mt19937 rng(20240601);
  while (g.edges().size() < kEdges) {
    auto u = static_cast<ModuleId>(rng() % kModules), v = static_cast<ModuleId>(rng() % kModules);
    if (u != v && !g.find(u, v)) g.add(u, v, {0, line, ++line, EdgeReason::Executes});
  }
  g.finish();

  auto comps = cyclic_components(g);
  ASSERT_EQ(comps.size(), 1u);
  ASSERT_EQ(comps[0].size(), kModules);

  auto covered_by = [&](const ComponentLoops& cl) {
    std::set<std::size_t> edges;
    for (const auto& loop : cl.loops) edges.insert(loop.edges.begin(), loop.edges.end());
    return edges.size();
  };

  auto capped = component_loops(g, comps[0], modules, 100);
  EXPECT_TRUE(capped.capped);
  EXPECT_EQ(capped.loops.size(), 100u);
  EXPECT_EQ(capped.edges_in_component, kEdges);
  EXPECT_EQ(capped.edges_covered, covered_by(capped));
  EXPECT_LT(capped.edges_covered, kEdges);

  auto full = component_loops(g, comps[0], modules, kEdges);
  EXPECT_FALSE(full.capped);
  EXPECT_EQ(full.edges_in_component, kEdges);
  EXPECT_EQ(full.edges_covered, kEdges);
  EXPECT_EQ(covered_by(full), kEdges);
  for (std::size_t i = 0; i < full.loops.size(); ++i) {
    expect_valid_loop(g, modules, full.loops[i]);
    if (i > 0) {
      EXPECT_LE(full.loops[i - 1].modules.size(), full.loops[i].modules.size());
    }
  }
}

}  // namespace
}  // namespace cyclefix
