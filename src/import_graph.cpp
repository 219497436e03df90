// The import-time graph, its cycles (strongly connected components, via
// Boost.Graph, which stays in this file) and readable loops that cover every
// edge of a component, for reports and cycle notes.

#include "import_graph.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <tuple>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace cyclefix {

void ImportGraph::add(ModuleId from, ModuleId to, StatementRef why) {
  if (from == to) return;  // a module importing itself runs nothing new
  std::size_t needed = std::max(from, to) + std::size_t{1};
  if (out_.size() < needed) out_.resize(needed);
  for (std::size_t e : out_[from]) {
    if (edges_[e].to == to) {
      edges_[e].statements.push_back(why);
      return;
    }
  }
  out_[from].push_back(edges_.size());
  edges_.push_back(ImportEdge{from, to, {why}});
}

const ImportEdge* ImportGraph::find(ModuleId from, ModuleId to) const {
  if (from >= out_.size()) return nullptr;
  for (std::size_t e : out_[from])
    if (edges_[e].to == to) return &edges_[e];
  return nullptr;
}

void ImportGraph::finish() {
  // Grown by doubling while the edges came in: on the 50,000-file benchmark
  // tree, 1.1 M edges in room for 2.1 M (34 MiB spare with the adjacency lists).
  edges_.shrink_to_fit();
  for (auto& out : out_) {
    std::sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return edges_[a].to < edges_[b].to; });
    out.shrink_to_fit();
  }
  for (auto& edge : edges_) {
    auto key = [](const StatementRef& s) {
      return std::tuple(s.line, s.file, s.import, static_cast<int>(s.reason));
    };
    std::sort(edge.statements.begin(), edge.statements.end(),
              [&](const StatementRef& a, const StatementRef& b) { return key(a) < key(b); });
    edge.statements.erase(std::unique(edge.statements.begin(), edge.statements.end()), edge.statements.end());
    edge.statements.shrink_to_fit();
  }
}

std::vector<std::vector<ModuleId>> cyclic_components(const ImportGraph& g) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const std::size_t n = g.module_count();
  Graph bg(n);
  for (const auto& e : g.edges()) boost::add_edge(e.from, e.to, bg);
  std::vector<int> component(n);
  const int count = n == 0 ? 0 : boost::strong_components(bg, component.data());

  std::vector<std::vector<ModuleId>> members(static_cast<std::size_t>(count));
  for (std::size_t m = 0; m < n; ++m) members[static_cast<std::size_t>(component[m])].push_back(static_cast<ModuleId>(m));
  // ImportGraph::add drops self-edges, so only components of two or more modules are cycles.
  std::vector<std::vector<ModuleId>> result;
  for (auto& c : members)
    if (c.size() > 1) result.push_back(std::move(c));  // already sorted: filled in id order
  std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return result;
}

// Covers the component's edges with shortest loops: for each uncovered edge
// u -> v (in name order), a BFS from v back to u inside the component closes
// the shortest loop through it. BFS runs only for edges still uncovered and
// stops at the cap, so the cost is at most max_loops searches of the component.
ComponentLoops component_loops(const ImportGraph& g, const std::vector<ModuleId>& component,
                               const std::vector<ModuleInfo>& modules, std::size_t max_loops) {
  ComponentLoops result;
  const std::size_t n = component.size();
  if (n == 0) return result;

  // Local indices 0..n-1 in module-name order, so every tie below breaks by name.
  std::vector<ModuleId> by_name(component);
  std::sort(by_name.begin(), by_name.end(),
            [&](ModuleId a, ModuleId b) { return modules[a].name < modules[b].name; });
  std::unordered_map<ModuleId, std::size_t> local;
  local.reserve(n);
  for (std::size_t i = 0; i < n; ++i) local.emplace(by_name[i], i);

  struct Arc {
    std::size_t to;     // local index
    std::size_t edge;   // ImportGraph edge id
    std::size_t index;  // index into `arcs` order (for coverage)
  };
  std::vector<std::vector<Arc>> adj(n);
  std::size_t arc_count = 0;
  for (std::size_t u = 0; u < n; ++u) {
    if (by_name[u] >= g.module_count()) continue;
    for (std::size_t e : g.out_edges(by_name[u])) {
      auto it = local.find(g.edges()[e].to);
      if (it != local.end()) adj[u].push_back({it->second, e, 0});
    }
    std::sort(adj[u].begin(), adj[u].end(), [](const Arc& a, const Arc& b) { return a.to < b.to; });
    for (auto& arc : adj[u]) arc.index = arc_count++;  // (u, v) in name order
  }
  result.edges_in_component = arc_count;

  std::vector<char> covered(arc_count, 0);
  std::vector<std::size_t> parent(n);          // arc position in adj[pred] that reached the node
  std::vector<std::size_t> pred(n);
  std::vector<std::size_t> seen_stamp(n, 0);   // == stamp when visited in the current BFS
  std::size_t stamp = 0;
  std::deque<std::size_t> queue;

  // Loops in local indices (rotated, first == last) with their edge ids.
  std::vector<std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> found;

  for (std::size_t u = 0; u < n && result.edges_covered < arc_count; ++u) {
    for (std::size_t a = 0; a < adj[u].size(); ++a) {
      const Arc& first = adj[u][a];
      if (covered[first.index]) continue;
      if (found.size() >= max_loops) {
        result.capped = true;
        break;
      }
      // BFS from v = first.to to u; neighbours visited in name order.
      ++stamp;
      queue.clear();
      const std::size_t v = first.to;
      seen_stamp[v] = stamp;
      queue.push_back(v);
      bool reached = (v == u);
      while (!queue.empty() && !reached) {
        std::size_t x = queue.front();
        queue.pop_front();
        for (std::size_t i = 0; i < adj[x].size(); ++i) {
          std::size_t y = adj[x][i].to;
          if (seen_stamp[y] == stamp) continue;
          seen_stamp[y] = stamp;
          pred[y] = x;
          parent[y] = i;
          if (y == u) {
            reached = true;
            break;
          }
          queue.push_back(y);
        }
      }
      if (!reached) {
        std::fprintf(stderr, "%s:%d: internal error: component is not strongly connected\n", __FILE__, __LINE__);
        std::abort();
      }
      // Walk back from u to v: arcs in reverse, then prepend u -> v.
      std::vector<const Arc*> hops;
      for (std::size_t y = u; y != v; y = pred[y]) hops.push_back(&adj[pred[y]][parent[y]]);
      hops.push_back(&first);
      std::reverse(hops.begin(), hops.end());
      // hops[0] is u -> v, then v -> ... -> u.
      std::vector<std::size_t> nodes{u};
      std::vector<std::size_t> edge_ids;
      for (const Arc* h : hops) {
        nodes.push_back(h->to);
        edge_ids.push_back(h->edge);
        if (!covered[h->index]) {
          covered[h->index] = 1;
          ++result.edges_covered;
        }
      }
      // Canonical rotation: the smallest-name (smallest local index) module first.
      // A new loop always holds a previously uncovered edge, so it is never a duplicate.
      nodes.pop_back();
      auto smallest = static_cast<std::size_t>(std::min_element(nodes.begin(), nodes.end()) - nodes.begin());
      std::rotate(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(smallest), nodes.end());
      std::rotate(edge_ids.begin(), edge_ids.begin() + static_cast<std::ptrdiff_t>(smallest), edge_ids.end());
      nodes.push_back(nodes.front());
      found.emplace_back(std::move(nodes), std::move(edge_ids));
      if (result.edges_covered == arc_count) break;
    }
    if (result.capped) break;
  }

  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.first.size() != b.first.size()) return a.first.size() < b.first.size();
    return a.first < b.first;  // local indices are in name order
  });
  result.loops.reserve(found.size());
  for (auto& [nodes, edge_ids] : found) {
    Loop loop;
    loop.modules.reserve(nodes.size());
    for (std::size_t i : nodes) loop.modules.push_back(by_name[i]);
    loop.edges = std::move(edge_ids);
    result.loops.push_back(std::move(loop));
  }
  return result;
}

std::vector<ModuleId> shortest_loop_through(const ImportGraph& g, std::size_t edge,
                                            const std::vector<ModuleId>& component) {
  const ModuleId from = g.edges()[edge].from, start = g.edges()[edge].to;
  auto inside = [&](ModuleId m) { return std::binary_search(component.begin(), component.end(), m); };
  if (!inside(from) || !inside(start)) return {};
  std::unordered_map<ModuleId, ModuleId> pred{{start, start}};
  std::deque<ModuleId> queue{start};
  bool reached = start == from;
  while (!queue.empty() && !reached) {
    const ModuleId x = queue.front();
    queue.pop_front();
    for (std::size_t e : g.out_edges(x)) {
      const ModuleId y = g.edges()[e].to;
      if (!inside(y) || !pred.emplace(y, x).second) continue;
      if (y == from) {
        reached = true;
        break;
      }
      queue.push_back(y);
    }
  }
  if (!reached) return {};
  std::vector<ModuleId> back;  // from, ..., start (reversed path)
  for (ModuleId y = from; y != start; y = pred.at(y)) back.push_back(y);
  back.push_back(start);
  std::vector<ModuleId> loop{from};
  loop.insert(loop.end(), back.rbegin(), back.rend());
  return loop;
}

}  // namespace cyclefix
