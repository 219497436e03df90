// Scale benchmark for the cut solver: a strongly connected instance of 2,000
// nodes and 10,000 edges (about 10% uncuttable, some edges with two statements,
// some statements shared by two edges of the same module), solved with the
// default 10 s limit. Not a test; run by hand:
//
//   cyclefix_bench_plan [nodes] [edges] [time_limit_s] [seed]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "cut_solver.hpp"

using cyclefix::CutInstance;

static CutInstance generate(std::uint32_t nodes, std::size_t edges, unsigned seed) {
  std::mt19937 rng(seed);
  auto below = [&](std::uint32_t k) { return static_cast<std::uint32_t>(rng() % k); };
  CutInstance inst;
  inst.nodes = nodes;
  auto new_statement = [&]() {
    inst.statement_cuttable.push_back(below(10) != 0);
    inst.statement_cost.push_back(0.75 + 0.25 * below(12));
    return static_cast<std::uint32_t>(inst.statement_cost.size() - 1);
  };
  std::vector<std::uint32_t> perm(nodes);
  for (std::uint32_t i = 0; i < nodes; ++i) perm[i] = i;
  for (std::uint32_t i = nodes - 1; i > 0; --i) std::swap(perm[i], perm[below(i + 1)]);
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t i = 0; i < nodes; ++i) pairs.insert({perm[i], perm[(i + 1) % nodes]});
  while (pairs.size() < edges) {
    const std::uint32_t a = below(nodes), b = below(nodes);
    if (a != b) pairs.insert({a, b});
  }
  std::vector<std::vector<std::uint32_t>> by_source(nodes);  // statements each module already has
  for (auto [a, b] : pairs) {
    CutInstance::Edge e;
    e.from = a;
    e.to = b;
    if (!by_source[a].empty() && below(10) == 0)
      e.statements.push_back(by_source[a][below(static_cast<std::uint32_t>(by_source[a].size()))]);
    else
      e.statements.push_back(new_statement());
    if (below(10) == 0) e.statements.push_back(new_statement());
    for (auto s : e.statements) by_source[a].push_back(s);
    inst.edges.push_back(std::move(e));
  }
  return inst;
}

int main(int argc, char** argv) {
  const std::uint32_t nodes = argc > 1 ? static_cast<std::uint32_t>(std::atoi(argv[1])) : 2000;
  const std::size_t edges = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 10000;
  cyclefix::CutOptions options;
  if (argc > 3) options.time_limit_s = std::atof(argv[3]);
  const unsigned seed = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 1;

  const CutInstance inst = generate(nodes, edges, seed);
  std::size_t uncuttable = 0;
  for (bool c : inst.statement_cuttable) uncuttable += !c;
  std::printf("instance: %u nodes, %zu edges, %zu statements (%zu uncuttable), limit %.1f s, cbc %s\n", nodes,
              inst.edges.size(), inst.statement_cost.size(), uncuttable, options.time_limit_s,
              cyclefix::cbc_available() ? "yes" : "no");

  const auto start = std::chrono::steady_clock::now();
  const cyclefix::CutSolution sol = cyclefix::solve_cuts(inst, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("time %.2f s (solver %.2f s), method %s, cuts %zu, cost %.2f, lower bound %.2f, gap %.1f%%, optimal %s, "
              "unbreakable loops %zu\n",
              wall, sol.seconds, sol.method.c_str(), sol.cut_statements.size(), sol.cost, sol.lower_bound,
              100 * sol.gap(), sol.optimal ? "yes" : "no", sol.unbreakable_cycles.size());
  const bool in_time = options.time_limit_s <= 0 || wall <= options.time_limit_s + 1.0;
  if (!in_time) std::printf("OVER the time limit\n");
  return in_time ? 0 : 1;
}
