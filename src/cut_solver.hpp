// The cut solver: which statements to defer so that an import graph loses its
// cycles, at minimum total cost. Pure combinatorics on nodes, edges and
// statements; knows nothing about Python (cut_plan.cpp builds the instance).
//
// Model. An edge is *removable* when it has at least one statement and every
// one of its statements is cuttable; it is removed exactly when all of its
// statements are cut. One statement may sit on several edges (cutting it counts
// once and helps all of them). The *unbreakable components* are the cyclic
// strongly connected components of the subgraph of non-removable edges (cyclic:
// two or more nodes, or one node with a non-removable self-loop). No choice of
// cuts can break those.
//
// Guarantee. After removing the edges whose statements are all in
// cut_statements, the cyclic strongly connected components of the remaining
// graph are exactly the unbreakable components, node for node. Put differently:
// every cycle that passes through a node outside the unbreakable components, or
// through two different ones, is broken; a cycle that stays inside one
// unbreakable component is left alone, and so are removable edges with both
// ends in the same unbreakable component (cutting them would cost edits and
// change no component). Only cuttable statements are ever cut. Among all
// statement sets with this guarantee, `cost` is the minimum when `optimal` is
// true; otherwise lower_bound <= minimum <= cost.
//
// Method. Reductions first: contract the unbreakable components, cut the
// statements of removable self-loops (forced), drop everything outside the
// strongly connected components of what is left, contract nodes with one arc in
// and one arc out into chains, and solve each component (components that share a
// statement are solved together) on its own. Per component: an upper bound from
// an Eades-Lin-Smyth ordering refined by moving nodes, then pruning every cut
// that is not needed; a lower bound from a fractional packing of short cycles;
// and, when built with CBC and `exact` is set, an integer program over the
// statements with lazily generated cycle constraints, seeded with a shortest
// cycle through every arc and re-solved with the violated cycles until the
// remaining graph is acyclic.
//
// Determinism. The same instance and options give the same solution: all
// orders are by index, CBC runs single-threaded with fixed seeds, and the
// heuristic's work is bounded by counts, not by the clock. The ILP's answer is
// used only when it is proven optimal; a component whose ILP runs out of time
// keeps the heuristic's plan (the ILP still tightens lower_bound). So the plan
// depends on the clock only for a component whose ILP finishes just around the
// time limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cyclefix {

struct CutInstance {
  std::size_t nodes = 0;
  struct Edge {
    std::uint32_t from = 0, to = 0;
    std::vector<std::uint32_t> statements;  // the edge is removed iff ALL of these are cut
  };
  std::vector<Edge> edges;
  std::vector<double> statement_cost;    // > 0 (and finite) for cuttable statements
  std::vector<bool> statement_cuttable;  // false: must never be cut
};

struct CutOptions {
  double time_limit_s = 10;  // wall clock for the whole solve; <= 0: no limit
  bool exact = true;         // use the ILP when built with CBC
  unsigned seed = 0;         // CBC's random seeds and the heuristic's move order
};

struct CutSolution {
  std::vector<std::uint32_t> cut_statements;  // sorted, each once
  double cost = 0, lower_bound = 0;
  bool optimal = false;  // cost is proven minimum
  double gap() const;    // (cost - lower_bound) / max(cost, eps); 0 when optimal

  // Loops (first == last) made only of non-removable edges, covering every node
  // of every unbreakable component: the shortest through the component's smallest
  // node, then through the smallest node not yet on a reported loop (at most 8 per
  // component). Components in order of their smallest node.
  std::vector<std::vector<std::uint32_t>> unbreakable_cycles;
  // Parallel to unbreakable_cycles: the component each loop belongs to, named by
  // its smallest node.
  std::vector<std::uint32_t> unbreakable_components;

  // "trivial": no search was needed (no cycles, or only forced cuts);
  // "ilp": every component was solved or proven optimal by the ILP;
  // "heuristic": otherwise (optimal may still be true when the heuristic met
  // the lower bound).
  std::string method;
  double seconds = 0;
};

// Throws std::invalid_argument for malformed instances (ids out of range,
// mismatched vector sizes, non-positive cost of a cuttable statement).
CutSolution solve_cuts(const CutInstance& instance, const CutOptions& options);

// True when compiled with CBC (CYCLEFIX_HAVE_CBC): exact solves are possible.
bool cbc_available();

}  // namespace cyclefix
