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
// statements of removable self-loops (forced), merge parallel edges (one edge
// carrying the union of their statements), drop everything outside the
// strongly connected components of what is left, contract nodes with one arc
// in and one arc out into chains, and solve each component on its own
// (components that share a statement together). Per component: an upper bound
// from Eades-Lin-Smyth orderings refined by moving single nodes, turned into
// statements, pruned to a minimal set and improved by swapping a cut statement
// for a cheaper minimum cut; a lower bound from a fractional packing of short
// cycles (a feasible dual of the LP relaxation); and, when built with CBC and
// `exact` is set, an integer program over the statements with lazily generated
// cycle constraints, seeded with a shortest cycle through every arc and
// re-solved with the violated cycles added until what is left is acyclic.
//
// Determinism. The same instance and options give the same solution, in
// whatever order the edges are listed: edges are put in a canonical order, all
// other orders are by index, CBC runs single-threaded with fixed seeds, and the
// heuristic's work is bounded by counts (scaled by time_limit_s), not by the
// clock. The ILP's answer is
// used only when it is proven optimal; a component whose ILP runs out of time
// keeps the heuristic's plan (the ILP still tightens lower_bound). So the plan
// depends on the clock only for a component whose ILP finishes just around the
// time limit, or when the heuristic alone needs the whole limit. CBC checks the
// clock between branch-and-bound nodes, so a solve may overrun the limit by a
// fraction of a second on large components.
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
  // "ilp": the ILP ran and every component ended proven optimal;
  // "heuristic": otherwise. optimal may be true for "heuristic" too, when the
  // plan met the cycle packing bound and no ILP was needed.
  std::string method;
  double seconds = 0;
};

// Throws std::invalid_argument for malformed instances (ids out of range,
// mismatched vector sizes, non-positive cost of a cuttable statement).
CutSolution solve_cuts(const CutInstance& instance, const CutOptions& options);

// The hitting variant (the planner's --only-failing mode): instead of every
// cycle, only the given loops must be broken. Each loop is a list of indexes
// into instance.edges; it is hit when at least one of its removable edges is
// removed (every statement of that edge cut; its other edges are ignored).
// Minimises the cost of the cut statements subject to hitting every loop; only
// cuttable statements are cut, and a statement shared by several edges counts
// once. `nodes` is not used. Method: a greedy plan (lowest marginal cost per
// newly hit loop, then made minimal), a lower bound from the same fractional
// packing as solve_cuts (over the given loops), and, when they do not meet and
// `exact` is set with CBC, the same integer program with the loops as its rows
// (solved once: there is nothing to generate lazily). `optimal`, `lower_bound`,
// `method` and determinism as for solve_cuts; `unbreakable_*` stay empty.
// Throws std::invalid_argument for a malformed instance, an unknown edge, or a
// loop with no removable edge (the caller reports those).
CutSolution solve_hitting(const CutInstance& instance, const std::vector<std::vector<std::uint32_t>>& loops,
                          const CutOptions& options);

// True when compiled with CBC (CYCLEFIX_HAVE_CBC): exact solves are possible.
bool cbc_available();

}  // namespace cyclefix
