// The cut solver: exactness against brute force on generated instances, the
// guarantee about unbreakable components, determinism, and small cases with a
// known answer.
#include "cut_solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace cyclefix {
namespace {

constexpr double kEps = 1e-6;

struct Builder {
  CutInstance inst;
  explicit Builder(std::size_t nodes) { inst.nodes = nodes; }
  std::uint32_t statement(double cost, bool cuttable = true) {
    inst.statement_cost.push_back(cost);
    inst.statement_cuttable.push_back(cuttable);
    return static_cast<std::uint32_t>(inst.statement_cost.size() - 1);
  }
  void edge_of(std::uint32_t from, std::uint32_t to, std::vector<std::uint32_t> statements) {
    inst.edges.push_back({from, to, std::move(statements)});
  }
  // An edge with a statement of its own.
  std::uint32_t edge(std::uint32_t from, std::uint32_t to, double cost, bool cuttable = true) {
    const std::uint32_t s = statement(cost, cuttable);
    edge_of(from, to, {s});
    return s;
  }
};

// Reachability by one or more edges, for small graphs.
std::vector<std::vector<char>> closure(std::size_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& arcs) {
  std::vector<std::vector<std::uint32_t>> out(n);
  for (auto [a, b] : arcs) out[a].push_back(b);
  std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<std::uint32_t> stack(out[s].begin(), out[s].end());
    while (!stack.empty()) {
      const auto v = stack.back();
      stack.pop_back();
      if (reach[s][v]) continue;
      reach[s][v] = 1;
      for (auto w : out[v]) stack.push_back(w);
    }
  }
  return reach;
}

bool removable(const CutInstance& inst, const CutInstance::Edge& e) {
  if (e.statements.empty()) return false;
  for (auto s : e.statements)
    if (!inst.statement_cuttable[s]) return false;
  return true;
}

// The guarantee, checked independently of the solver: the cyclic strongly
// connected components of what is left are those of the non-removable edges.
bool meets_guarantee(const CutInstance& inst, const std::vector<char>& cut) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> rest, fixed;
  for (const auto& e : inst.edges) {
    bool gone = removable(inst, e);
    for (auto s : e.statements) gone = gone && cut[s];
    if (!gone) rest.push_back({e.from, e.to});
    if (!removable(inst, e)) fixed.push_back({e.from, e.to});
  }
  const auto r = closure(inst.nodes, rest), h = closure(inst.nodes, fixed);
  for (std::size_t u = 0; u < inst.nodes; ++u) {
    if (r[u][u] != h[u][u]) return false;
    if (!r[u][u]) continue;
    for (std::size_t v = 0; v < inst.nodes; ++v)
      if ((r[u][v] && r[v][u]) != (h[u][v] && h[v][u])) return false;
  }
  return true;
}

std::vector<char> as_mask(const CutInstance& inst, const std::vector<std::uint32_t>& cut) {
  std::vector<char> mask(inst.statement_cost.size(), 0);
  for (auto s : cut) mask[s] = 1;
  return mask;
}

// Minimum by enumerating every subset of the cuttable statements.
double brute_force_subsets(const CutInstance& inst) {
  std::vector<std::uint32_t> cuttable;
  for (std::uint32_t s = 0; s < inst.statement_cost.size(); ++s)
    if (inst.statement_cuttable[s]) cuttable.push_back(s);
  EXPECT_LE(cuttable.size(), 20u);
  double best = std::numeric_limits<double>::infinity();
  std::vector<char> cut(inst.statement_cost.size(), 0);
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << cuttable.size()); ++bits) {
    double cost = 0;
    for (std::size_t i = 0; i < cuttable.size(); ++i) {
      cut[cuttable[i]] = (bits >> i) & 1;
      if (cut[cuttable[i]]) cost += inst.statement_cost[cuttable[i]];
    }
    if (cost < best && meets_guarantee(inst, cut)) best = cost;
  }
  return best;
}

// Minimum for instances where every edge has a statement of its own and the
// uncuttable edges form no cycle: the cheapest set of backward edges over all
// vertex orders, by dynamic programming over the set of nodes placed first.
double brute_force_orders(const CutInstance& inst) {
  const std::size_t n = inst.nodes;
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t full = std::size_t{1} << n;
  std::vector<double> best(full, inf);
  best[0] = 0;
  // back[v][mask]: cost of v's edges into `mask` (they point backward when v comes after mask).
  std::vector<std::vector<double>> back(n, std::vector<double>(full, 0));
  std::vector<std::vector<double>> to(n, std::vector<double>(n, 0));
  for (const auto& e : inst.edges) {
    const double c = inst.statement_cuttable[e.statements[0]] ? inst.statement_cost[e.statements[0]] : inf;
    to[e.from][e.to] += c;
  }
  for (std::size_t v = 0; v < n; ++v)
    for (std::size_t mask = 1; mask < full; ++mask) {
      const std::size_t low = static_cast<std::size_t>(__builtin_ctzll(mask));
      back[v][mask] = back[v][mask & (mask - 1)] + to[v][low];
    }
  for (std::size_t mask = 0; mask < full; ++mask) {
    if (best[mask] == inf) continue;
    for (std::size_t v = 0; v < n; ++v) {
      if (mask >> v & 1) continue;
      const double c = best[mask] + back[v][mask];
      best[mask | (std::size_t{1} << v)] = std::min(best[mask | (std::size_t{1} << v)], c);
    }
  }
  return best[full - 1];
}

void expect_well_formed(const CutInstance& inst, const CutSolution& sol) {
  EXPECT_TRUE(std::is_sorted(sol.cut_statements.begin(), sol.cut_statements.end()));
  EXPECT_EQ(std::adjacent_find(sol.cut_statements.begin(), sol.cut_statements.end()), sol.cut_statements.end());
  double cost = 0;
  for (auto s : sol.cut_statements) {
    EXPECT_TRUE(inst.statement_cuttable[s]) << "cut an uncuttable statement " << s;
    cost += inst.statement_cost[s];
  }
  EXPECT_NEAR(cost, sol.cost, kEps);
  EXPECT_LE(sol.lower_bound, sol.cost + kEps);
  EXPECT_TRUE(meets_guarantee(inst, as_mask(inst, sol.cut_statements)));
  EXPECT_EQ(sol.unbreakable_cycles.size(), sol.unbreakable_components.size());
}

// Checks one instance against its known minimum, with the ILP (when built with
// CBC) and with the heuristic alone.
struct Coverage {
  int instances = 0, with_cuts = 0, unbreakable = 0, heuristic_optimal = 0, by_ilp = 0;
};

void expect_exact(const CutInstance& inst, double minimum, const std::string& label, Coverage& seen) {
  SCOPED_TRACE(label);
  CutOptions exact;
  exact.time_limit_s = 0;
  const CutSolution sol = solve_cuts(inst, exact);
  expect_well_formed(inst, sol);
  EXPECT_GE(sol.cost, minimum - kEps);
  EXPECT_LE(sol.lower_bound, minimum + kEps);
  if (cbc_available()) {
    EXPECT_NEAR(sol.cost, minimum, kEps);
    EXPECT_TRUE(sol.optimal);
    EXPECT_NEAR(sol.lower_bound, sol.cost, kEps);
    EXPECT_EQ(sol.gap(), 0);
  }
  CutOptions heuristic;
  heuristic.exact = false;
  const CutSolution h = solve_cuts(inst, heuristic);
  expect_well_formed(inst, h);
  EXPECT_GE(h.cost, minimum - kEps);
  EXPECT_LE(h.lower_bound, minimum + kEps);
  if (h.optimal) EXPECT_NEAR(h.cost, minimum, kEps);
  ++seen.instances;
  seen.with_cuts += minimum > 0;
  seen.unbreakable += !sol.unbreakable_cycles.empty();
  seen.heuristic_optimal += std::abs(h.cost - minimum) < kEps;
  seen.by_ilp += sol.method == "ilp";
}

double draw_cost(std::mt19937& rng, int style) {
  switch (style) {
    case 0: return 1.0;                                        // uniform
    case 1: return 0.5 * static_cast<double>(1 + rng() % 8);  // few distinct values (ties)
    default: return 0.1 + static_cast<double>(rng() % 1000) / 200.0;
  }
}

// Up to 10 nodes and 16 statements: multi-statement edges, statements shared by
// edges (of the same module and of different ones), uncuttable statements
// (so unbreakable components too), self-loops.
CutInstance random_statement_instance(std::mt19937& rng) {
  const std::uint32_t n = 2 + rng() % 9;
  Builder b(n);
  const int style = static_cast<int>(rng() % 3);
  const unsigned density = 20 + rng() % 50;  // percent of ordered pairs
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint32_t v = 0; v < n; ++v)
      if ((u != v && rng() % 100 < density) || (u == v && rng() % 40 == 0)) pairs.push_back({u, v});
  std::shuffle(pairs.begin(), pairs.end(), rng);
  for (auto [u, v] : pairs) {
    if (b.inst.statement_cost.size() >= 16) break;
    std::vector<std::uint32_t> st;
    const unsigned kind = rng() % 10;
    if (kind < 2 && !b.inst.statement_cost.empty()) {  // share an existing statement
      st.push_back(static_cast<std::uint32_t>(rng() % b.inst.statement_cost.size()));
    } else {
      st.push_back(b.statement(draw_cost(rng, style), rng() % 5 != 0));
    }
    if (kind == 9 && b.inst.statement_cost.size() < 16) st.push_back(b.statement(draw_cost(rng, style), rng() % 5 != 0));
    b.edge_of(u, v, st);
  }
  return b.inst;
}

// Up to 16 nodes; every edge has its own statement; uncuttable edges all point
// forward in a hidden order, so nothing is unbreakable.
CutInstance random_edge_instance(std::mt19937& rng, bool dense) {
  const std::uint32_t n = dense ? 12 + rng() % 5 : 4 + rng() % 13;
  Builder b(n);
  const int style = static_cast<int>(rng() % 3);
  std::vector<std::uint32_t> rank(n);
  for (std::uint32_t i = 0; i < n; ++i) rank[i] = i;
  std::shuffle(rank.begin(), rank.end(), rng);
  const std::uint32_t edges = dense ? 3 * n + rng() % (3 * n) : n + rng() % (3 * n);
  for (std::uint32_t i = 0; i < edges; ++i) {
    const std::uint32_t u = rng() % n, v = rng() % n;
    if (u == v) continue;
    const bool cuttable = rank[u] > rank[v] || rng() % 6 != 0;
    b.edge(u, v, draw_cost(rng, style), cuttable);
  }
  return b.inst;
}

TEST(CutSolver, ExactOnStatementInstancesAgainstSubsetEnumeration) {
  std::mt19937 rng(20240601);
  Coverage seen;
  for (int i = 0; i < 150; ++i) {
    const CutInstance inst = random_statement_instance(rng);
    expect_exact(inst, brute_force_subsets(inst), "statement instance " + std::to_string(i), seen);
  }
  // The generator really produces cycles to cut and unbreakable ones.
  EXPECT_GE(seen.with_cuts, 90);
  EXPECT_GE(seen.unbreakable, 15);
  std::printf("statement instances: %d, needing cuts %d, with unbreakable loops %d, heuristic optimal %d, ILP used %d\n",
              seen.instances, seen.with_cuts, seen.unbreakable, seen.heuristic_optimal, seen.by_ilp);
}

TEST(CutSolver, ExactOnEdgeInstancesAgainstOrderDP) {
  std::mt19937 rng(777);
  Coverage seen;
  for (int i = 0; i < 160; ++i) {
    const bool dense = i >= 100;  // the last 60: 12-16 nodes, 3-6 edges per node
    const CutInstance inst = random_edge_instance(rng, dense);
    expect_exact(inst, brute_force_orders(inst), "edge instance " + std::to_string(i), seen);
  }
  EXPECT_GE(seen.with_cuts, 140);
  std::printf("edge instances: %d, needing cuts %d, heuristic optimal %d, ILP used %d\n", seen.instances,
              seen.with_cuts, seen.heuristic_optimal, seen.by_ilp);
}

TEST(CutSolver, DagNeedsNoCuts) {
  Builder b(4);
  b.edge(0, 1, 1.0);
  b.edge(1, 2, 1.0);
  b.edge(0, 2, 1.0);
  b.edge(2, 3, 1.0, false);
  const CutSolution sol = solve_cuts(b.inst, {});
  EXPECT_TRUE(sol.cut_statements.empty());
  EXPECT_EQ(sol.cost, 0);
  EXPECT_TRUE(sol.optimal);
  EXPECT_EQ(sol.method, "trivial");
  EXPECT_TRUE(sol.unbreakable_cycles.empty());
}

TEST(CutSolver, TwoCycleCutsTheCheaperSide) {
  Builder b(2);
  b.edge(0, 1, 2.0);
  const auto cheap = b.edge(1, 0, 1.5);
  for (bool exact : {true, false}) {
    CutOptions o;
    o.exact = exact;
    const CutSolution sol = solve_cuts(b.inst, o);
    EXPECT_EQ(sol.cut_statements, std::vector<std::uint32_t>{cheap});
    EXPECT_DOUBLE_EQ(sol.cost, 1.5);
    EXPECT_TRUE(sol.optimal);  // the cycle packing bound meets it
  }
}

TEST(CutSolver, MultiStatementEdgeNeedsAllItsStatements) {
  Builder b(2);
  const auto s1 = b.statement(1.0), s2 = b.statement(1.0);
  b.edge_of(0, 1, {s1, s2});  // two imports of the same module: both must go
  const auto other = b.edge(1, 0, 2.5);
  const CutSolution sol = solve_cuts(b.inst, {});
  EXPECT_EQ(sol.cut_statements, (std::vector<std::uint32_t>{s1, s2}));
  EXPECT_DOUBLE_EQ(sol.cost, 2.0);
  (void)other;
}

TEST(CutSolver, UnbreakableCycleReportedWhileOthersAreBroken) {
  // 0 <-> 1 only through uncuttable imports; 0 -> 2 -> 3 -> 0 and 1 -> 4 -> 1 can be broken.
  Builder b(5);
  b.edge(0, 1, 1.0, false);
  b.edge(1, 0, 1.0, false);
  b.edge(0, 2, 3.0);
  const auto s23 = b.edge(2, 3, 1.0);
  b.edge(3, 0, 2.0);
  b.edge(1, 4, 2.0);
  const auto s41 = b.edge(4, 1, 0.5);
  const CutSolution sol = solve_cuts(b.inst, {});
  ASSERT_EQ(sol.unbreakable_cycles.size(), 1u);
  EXPECT_EQ(sol.unbreakable_cycles[0], (std::vector<std::uint32_t>{0, 1, 0}));
  EXPECT_EQ(sol.unbreakable_components, std::vector<std::uint32_t>{0});
  EXPECT_EQ(sol.cut_statements, (std::vector<std::uint32_t>{s23, s41}));
  EXPECT_DOUBLE_EQ(sol.cost, 1.5);
  EXPECT_TRUE(meets_guarantee(b.inst, as_mask(b.inst, sol.cut_statements)));
}

TEST(CutSolver, CuttableEdgeInsideUnbreakableComponentIsLeftAlone) {
  Builder b(3);
  b.edge(0, 1, 1.0, false);
  b.edge(1, 2, 1.0, false);
  b.edge(2, 0, 1.0, false);
  b.edge(0, 2, 1.0);  // cutting it would change nothing: 0, 1, 2 stay one cycle
  const CutSolution sol = solve_cuts(b.inst, {});
  EXPECT_TRUE(sol.cut_statements.empty());
  ASSERT_EQ(sol.unbreakable_cycles.size(), 1u);
  EXPECT_EQ(sol.unbreakable_cycles[0], (std::vector<std::uint32_t>{0, 1, 2, 0}));
}

TEST(CutSolver, SelfLoops) {
  Builder b(3);
  const auto forced = b.edge(0, 0, 4.0);  // a cuttable self-loop must go, whatever it costs
  b.edge(1, 1, 1.0, false);               // an uncuttable one is reported
  b.edge(0, 1, 1.0);
  const CutSolution sol = solve_cuts(b.inst, {});
  EXPECT_EQ(sol.cut_statements, std::vector<std::uint32_t>{forced});
  ASSERT_EQ(sol.unbreakable_cycles.size(), 1u);
  EXPECT_EQ(sol.unbreakable_cycles[0], (std::vector<std::uint32_t>{1, 1}));
  EXPECT_TRUE(sol.optimal);
}

TEST(CutSolver, LongChainCutsItsCheapestLink) {
  Builder b(12);
  std::uint32_t cheapest = 0;
  for (std::uint32_t i = 0; i < 12; ++i) {
    const auto s = b.edge(i, (i + 1) % 12, i == 7 ? 0.25 : 1.0 + i);
    if (i == 7) cheapest = s;
  }
  for (bool exact : {true, false}) {
    CutOptions o;
    o.exact = exact;
    const CutSolution sol = solve_cuts(b.inst, o);
    EXPECT_EQ(sol.cut_statements, std::vector<std::uint32_t>{cheapest});
    EXPECT_TRUE(sol.optimal);
  }
}

TEST(CutSolver, StatementSharedAcrossComponentsIsPaidOnce) {
  // Two separate 2-cycles; one statement sits on an edge of each.
  Builder b(4);
  const auto shared = b.statement(1.5);
  b.edge_of(0, 1, {shared});
  b.edge(1, 0, 1.0);
  b.edge_of(2, 3, {shared});
  b.edge(3, 2, 1.0);
  const CutSolution sol = solve_cuts(b.inst, {});
  EXPECT_EQ(sol.cut_statements, std::vector<std::uint32_t>{shared});
  EXPECT_DOUBLE_EQ(sol.cost, 1.5);
  if (cbc_available()) EXPECT_TRUE(sol.optimal);
}

// The seed's lesson: verifier -> capture -> verifier can be broken in verifier
// (narrow, cheap) or in capture's own import of program and verifier (shared).
// Only the shared one also breaks program -> capture -> program and
// serialize -> capture -> program -> serialize, so the plan must choose it.
TEST(CutSolver, PrefersTheSharedStatementThatBreaksEveryLoop) {
  enum : std::uint32_t { kVerifier, kCapture, kProgram, kSerialize };
  Builder b(4);
  const auto narrow = b.edge(kVerifier, kCapture, 1.0);  // verifier: from capture._config import ...
  const auto shared = b.statement(2.0);                  // _capture: from exir import program, verifier
  b.edge_of(kCapture, kProgram, {shared});
  b.edge_of(kCapture, kVerifier, {shared});
  b.edge(kProgram, kCapture, 1.0, false);    // program: capture._config, used at import time
  b.edge(kSerialize, kCapture, 1.0, false);  // serialize: the same
  b.edge(kProgram, kSerialize, 1.0, false);
  for (bool exact : {true, false}) {
    CutOptions o;
    o.exact = exact;
    const CutSolution sol = solve_cuts(b.inst, o);
    EXPECT_EQ(sol.cut_statements, std::vector<std::uint32_t>{shared});
    EXPECT_TRUE(std::find(sol.cut_statements.begin(), sol.cut_statements.end(), narrow) == sol.cut_statements.end());
    EXPECT_TRUE(sol.unbreakable_cycles.empty());
  }
}

CutInstance random_medium_instance(unsigned seed, std::uint32_t n, std::uint32_t m) {
  std::mt19937 rng(seed);
  Builder b(n);
  for (std::uint32_t i = 0; i < n; ++i) b.edge(i, (i + 1) % n, 1.0 + rng() % 4);
  for (std::uint32_t i = n; i < m; ++i) {
    const std::uint32_t u = rng() % n, v = rng() % n;
    if (u == v) continue;
    if (rng() % 8 == 0 && !b.inst.statement_cost.empty())
      b.edge_of(u, v, {static_cast<std::uint32_t>(rng() % b.inst.statement_cost.size())});
    else
      b.edge(u, v, 0.5 * (1 + rng() % 6), rng() % 10 != 0);
  }
  return b.inst;
}

TEST(CutSolver, DeterministicAndIndependentOfEdgeOrder) {
  const CutInstance inst = random_medium_instance(5, 40, 120);
  for (bool exact : {true, false}) {
    SCOPED_TRACE(exact ? "exact" : "heuristic");
    CutOptions o;
    o.exact = exact;
    o.time_limit_s = 0;
    const CutSolution first = solve_cuts(inst, o);
    const CutSolution second = solve_cuts(inst, o);
    EXPECT_EQ(first.cut_statements, second.cut_statements);
    EXPECT_EQ(first.cost, second.cost);
    EXPECT_EQ(first.lower_bound, second.lower_bound);
    EXPECT_EQ(first.unbreakable_cycles, second.unbreakable_cycles);

    CutInstance shuffled = inst;
    std::mt19937 rng(99);
    std::shuffle(shuffled.edges.begin(), shuffled.edges.end(), rng);
    for (auto& e : shuffled.edges) std::reverse(e.statements.begin(), e.statements.end());
    const CutSolution third = solve_cuts(shuffled, o);
    EXPECT_EQ(first.cut_statements, third.cut_statements);
    EXPECT_DOUBLE_EQ(first.cost, third.cost);
    expect_well_formed(inst, first);
  }
}

TEST(CutSolver, RespectsTheTimeLimitAndReportsAGap) {
  const CutInstance inst = random_medium_instance(11, 400, 2000);
  CutOptions o;
  o.time_limit_s = 1.0;
  const CutSolution sol = solve_cuts(inst, o);
  expect_well_formed(inst, sol);
  EXPECT_LT(sol.seconds, 2.0);  // CBC checks the clock between nodes
  EXPECT_GE(sol.gap(), 0);
  if (!sol.optimal) {
    EXPECT_GT(sol.gap(), 0);
    EXPECT_EQ(sol.method, "heuristic");
  }
}

TEST(CutSolver, RejectsMalformedInstances) {
  Builder b(2);
  b.edge(0, 1, 1.0);
  CutInstance bad = b.inst;
  bad.edges[0].to = 5;
  EXPECT_THROW(solve_cuts(bad, {}), std::invalid_argument);
  bad = b.inst;
  bad.edges[0].statements = {7};
  EXPECT_THROW(solve_cuts(bad, {}), std::invalid_argument);
  bad = b.inst;
  bad.statement_cost[0] = 0;
  EXPECT_THROW(solve_cuts(bad, {}), std::invalid_argument);
  bad = b.inst;
  bad.statement_cuttable.push_back(true);
  EXPECT_THROW(solve_cuts(bad, {}), std::invalid_argument);
}

}  // namespace
}  // namespace cyclefix
