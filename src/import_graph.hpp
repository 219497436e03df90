// The import-time module graph: an edge A -> B when A's module-level code may
// run B's body or need a name from B. Boost.Graph stays inside import_graph.cpp;
// callers see module ids and plain vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "module_index.hpp"

namespace cyclefix {

// A statement that creates an edge: file index and import index within that file's facts.
struct StatementRef {
  int file = -1;
  int import = -1;
  int line = 0;
  EdgeReason reason = EdgeReason::Executes;
  bool operator==(const StatementRef&) const = default;
};

struct ImportEdge {
  ModuleId from = 0, to = 0;
  std::vector<StatementRef> statements;  // sorted by line
};

class ImportGraph {
 public:
  explicit ImportGraph(std::size_t module_count = 0) : out_(module_count) {}
  void add(ModuleId from, ModuleId to, StatementRef why);  // merges parallel edges
  std::size_t module_count() const { return out_.size(); }
  const std::vector<ImportEdge>& edges() const { return edges_; }
  // Edge ids leaving `m`, sorted by target id.
  const std::vector<std::size_t>& out_edges(ModuleId m) const { return out_[m]; }
  const ImportEdge* find(ModuleId from, ModuleId to) const;
  void finish();  // sorts adjacency and statements; call once after the last add

 private:
  std::vector<ImportEdge> edges_;
  std::vector<std::vector<std::size_t>> out_;
};

// Strongly connected components with a cycle (size > 1), each sorted by module
// id, components sorted by their first member. Callers assign ids in module-name
// order, which makes the result deterministic.
std::vector<std::vector<ModuleId>> cyclic_components(const ImportGraph& g);

// A loop a -> b -> ... -> a, as module ids (first == last) and the edge taken per hop.
struct Loop {
  std::vector<ModuleId> modules;
  std::vector<std::size_t> edges;
};

struct ComponentLoops {
  std::vector<Loop> loops;  // shortest first
  bool capped = false;      // more loops were needed to cover every edge than `max_loops`
  std::size_t edges_in_component = 0;
  std::size_t edges_covered = 0;
};

// Loops that together cover every edge of the component (up to max_loops),
// each a shortest loop through its edge, shortest first, deterministic.
ComponentLoops component_loops(const ImportGraph& g, const std::vector<ModuleId>& component,
                               const std::vector<ModuleInfo>& modules, std::size_t max_loops);

// The shortest loop that takes edge `edge` (from -> to, then back to `from`)
// without leaving `component` (sorted module ids), as module ids starting at
// the edge's source (first == last); empty when `to` does not reach back.
// Neighbours are visited in id order, so ties break by module name.
std::vector<ModuleId> shortest_loop_through(const ImportGraph& g, std::size_t edge,
                                            const std::vector<ModuleId>& component);

}  // namespace cyclefix
