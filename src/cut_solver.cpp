// The cut solver (see cut_solver.hpp for the model and the guarantee).
#include "cut_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#ifdef CYCLEFIX_HAVE_CBC
#include <coin/Cbc_C_Interface.h>
#include <cfloat>
#endif

namespace cyclefix {

double CutSolution::gap() const {
  if (optimal) return 0;
  return std::max(0.0, cost - lower_bound) / std::max(cost, 1e-12);
}

bool cbc_available() {
#ifdef CYCLEFIX_HAVE_CBC
  return true;
#else
  return false;
#endif
}

namespace {

#define CUT_CHECK(cond)                                                                          \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "%s:%d: internal error in the cut solver: %s\n", __FILE__, __LINE__, \
                   #cond);                                                                       \
      std::abort();                                                                              \
    }                                                                                            \
  } while (0)

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

class Deadline {
 public:
  explicit Deadline(double seconds) : start_(Clock::now()), limit_(seconds) {}
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double remaining() const { return limit_ <= 0 ? kInf : limit_ - elapsed(); }
  bool passed() const { return limit_ > 0 && elapsed() >= limit_; }

 private:
  Clock::time_point start_;
  double limit_;
};

// Tolerance for comparing costs: costs are sums of positive doubles.
double tolerance(double scale) { return 1e-9 * std::max(1.0, std::abs(scale)); }

// Strongly connected components (iterative Tarjan). Components are numbered by
// their smallest node, so the numbering depends only on the graph.
std::vector<int> strong_components(const std::vector<std::vector<int>>& out, int* count) {
  const int n = static_cast<int>(out.size());
  std::vector<int> index(n, -1), low(n, 0), comp(n, -1), stack;
  std::vector<char> on_stack(n, 0);
  std::vector<std::pair<int, std::size_t>> calls;
  int counter = 0, found = 0;
  for (int root = 0; root < n; ++root) {
    if (index[root] != -1) continue;
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    calls.push_back({root, 0});
    while (!calls.empty()) {
      const int v = calls.back().first;
      std::size_t& next = calls.back().second;
      if (next < out[v].size()) {
        const int w = out[v][next++];
        if (index[w] == -1) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          calls.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          comp[w] = found;
        } while (w != v);
        ++found;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
    }
  }
  std::vector<int> rename(found, -1);
  int next = 0;
  for (int v = 0; v < n; ++v)
    if (rename[comp[v]] == -1) rename[comp[v]] = next++;
  for (int& c : comp) c = rename[c];
  *count = found;
  return comp;
}

// ---------------------------------------------------------------------------
// A component to solve: local nodes, local edges (each with its local
// statements; none for a non-removable edge) and arcs. An arc is a chain of
// edges through nodes with one way in and one way out; it is gone when any of
// its edges is removed, and fixed when none of them is removable.

struct Arc {
  int from = 0, to = 0;
  std::vector<int> edges;
  bool fixed = false;
};

struct Group {
  int n = 0;
  std::vector<std::uint32_t> stmt;              // local statement -> instance statement, ascending
  std::vector<double> cost;                     // per local statement
  std::vector<std::vector<int>> edge_stmts;     // per local edge; empty: not removable
  std::vector<std::vector<int>> stmt_edges;     // per local statement: removable edges holding it
  std::vector<int> edge_arc;                    // per local edge
  std::vector<Arc> arcs;                        // sorted by (from, to, first edge)
  std::vector<std::vector<int>> out, in;        // per node: arc ids, ascending

  // Result.
  std::vector<char> cut;  // per local statement
  double cost_value = 0, lower_bound = 0;
  bool optimal = false, used_ilp = false;
};

// Contracts nodes with exactly one arc in and one arc out (not a self-loop) and
// renumbers what is left. Every cycle through such a node uses both of its arcs,
// so the chain behaves like one arc that disappears when any edge on it does.
void build_arcs(Group& g, const std::vector<std::pair<int, int>>& edge_ends) {
  std::vector<Arc> arcs(edge_ends.size());
  std::vector<std::vector<int>> out(g.n), in(g.n);
  for (std::size_t e = 0; e < edge_ends.size(); ++e) {
    arcs[e].from = edge_ends[e].first;
    arcs[e].to = edge_ends[e].second;
    arcs[e].edges = {static_cast<int>(e)};
    arcs[e].fixed = g.edge_stmts[e].empty();
    out[arcs[e].from].push_back(static_cast<int>(e));
    in[arcs[e].to].push_back(static_cast<int>(e));
  }
  std::vector<char> alive(arcs.size(), 1);
  auto drop = [](std::vector<int>& list, int a) { list.erase(std::find(list.begin(), list.end(), a)); };
  for (int v = 0; v < g.n; ++v) {
    if (in[v].size() != 1 || out[v].size() != 1 || in[v][0] == out[v][0]) continue;
    const int a1 = in[v][0], a2 = out[v][0];
    Arc merged;
    merged.from = arcs[a1].from;
    merged.to = arcs[a2].to;
    merged.edges = arcs[a1].edges;
    merged.edges.insert(merged.edges.end(), arcs[a2].edges.begin(), arcs[a2].edges.end());
    merged.fixed = arcs[a1].fixed && arcs[a2].fixed;
    CUT_CHECK(!(merged.fixed && merged.from == merged.to));  // fixed cycles were contracted away
    alive[a1] = alive[a2] = 0;
    drop(out[merged.from], a1);
    drop(in[merged.to], a2);
    in[v].clear();
    out[v].clear();
    const int id = static_cast<int>(arcs.size());
    arcs.push_back(std::move(merged));
    alive.push_back(1);
    out[arcs[id].from].push_back(id);
    in[arcs[id].to].push_back(id);
  }
  std::vector<int> rename(g.n, -1);
  int nodes = 0;
  for (int v = 0; v < g.n; ++v)
    if (!in[v].empty() || !out[v].empty()) rename[v] = nodes++;
  g.n = nodes;
  g.arcs.clear();
  for (std::size_t a = 0; a < arcs.size(); ++a) {
    if (!alive[a]) continue;
    Arc arc = std::move(arcs[a]);
    arc.from = rename[arc.from];
    arc.to = rename[arc.to];
    CUT_CHECK(arc.from >= 0 && arc.to >= 0);
    g.arcs.push_back(std::move(arc));
  }
  std::sort(g.arcs.begin(), g.arcs.end(), [](const Arc& x, const Arc& y) {
    return std::tie(x.from, x.to, x.edges[0]) < std::tie(y.from, y.to, y.edges[0]);
  });
  g.out.assign(g.n, {});
  g.in.assign(g.n, {});
  g.edge_arc.assign(g.edge_stmts.size(), -1);
  for (std::size_t a = 0; a < g.arcs.size(); ++a) {
    g.out[g.arcs[a].from].push_back(static_cast<int>(a));
    g.in[g.arcs[a].to].push_back(static_cast<int>(a));
    for (int e : g.arcs[a].edges) g.edge_arc[e] = static_cast<int>(a);
  }
  for (int e : g.edge_arc) CUT_CHECK(e >= 0);
}

double cut_cost(const Group& g, const std::vector<char>& cut) {
  double total = 0;
  for (std::size_t s = 0; s < cut.size(); ++s)
    if (cut[s]) total += g.cost[s];
  return total;
}

bool edge_removed(const Group& g, int e, const std::vector<char>& cut) {
  const auto& st = g.edge_stmts[e];
  if (st.empty()) return false;
  for (int s : st)
    if (!cut[s]) return false;
  return true;
}

std::vector<char> gone_arcs(const Group& g, const std::vector<char>& cut) {
  std::vector<char> gone(g.arcs.size(), 0);
  for (std::size_t e = 0; e < g.edge_stmts.size(); ++e)
    if (edge_removed(g, static_cast<int>(e), cut)) gone[g.edge_arc[e]] = 1;
  return gone;
}

// Kahn's algorithm over the arcs still present. On success fills `pos` with a
// topological position per node.
bool acyclic(const Group& g, const std::vector<char>& gone, std::vector<int>* pos = nullptr) {
  std::vector<int> indeg(g.n, 0), queue;
  for (std::size_t a = 0; a < g.arcs.size(); ++a)
    if (!gone[a]) ++indeg[g.arcs[a].to];
  queue.reserve(g.n);
  for (int v = 0; v < g.n; ++v)
    if (indeg[v] == 0) queue.push_back(v);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const int v = queue[head];
    for (int a : g.out[v])
      if (!gone[a] && --indeg[g.arcs[a].to] == 0) queue.push_back(g.arcs[a].to);
  }
  if (static_cast<int>(queue.size()) != g.n) return false;
  if (pos) {
    pos->assign(g.n, 0);
    for (int i = 0; i < g.n; ++i) (*pos)[queue[i]] = i;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Upper bound: orderings.

// Weight of an arc for the ordering heuristics: the cheapest removable edge on
// it. model 0 splits a statement's cost among the edges that share it, model 1
// charges it in full to each, model 2 counts edges.
std::vector<double> arc_weights(const Group& g, int model) {
  std::vector<double> w(g.arcs.size(), 0);
  for (std::size_t a = 0; a < g.arcs.size(); ++a) {
    if (g.arcs[a].fixed) continue;
    double best = kInf;
    for (int e : g.arcs[a].edges) {
      if (g.edge_stmts[e].empty()) continue;
      double sum = 0;
      for (int s : g.edge_stmts[e]) {
        if (model == 0) sum += g.cost[s] / static_cast<double>(g.stmt_edges[s].size());
        if (model == 1) sum += g.cost[s];
      }
      if (model == 2) sum = 1;
      best = std::min(best, sum);
    }
    w[a] = best;
  }
  return w;
}

// Eades-Lin-Smyth: peel sinks to the back and sources to the front; otherwise
// put the node with the largest (weighted out - weighted in) in front. Only a
// node with no fixed arc coming in from the remaining nodes may go in front, so
// fixed arcs always point forward (the fixed arcs form a DAG, so one exists).
std::vector<int> els_order(const Group& g, const std::vector<double>& w) {
  const int n = g.n;
  std::vector<double> win(n, 0), wout(n, 0);
  std::vector<int> indeg(n, 0), outdeg(n, 0), fixin(n, 0);
  for (std::size_t a = 0; a < g.arcs.size(); ++a) {
    const Arc& arc = g.arcs[a];
    if (arc.from == arc.to) continue;
    ++outdeg[arc.from];
    ++indeg[arc.to];
    if (arc.fixed) {
      ++fixin[arc.to];
    } else {
      wout[arc.from] += w[a];
      win[arc.to] += w[a];
    }
  }
  std::vector<char> alive(n, 1);
  std::set<std::pair<double, int>> candidates;  // (-(wout - win), node), fixin == 0
  std::vector<double> key(n, 0);
  for (int v = 0; v < n; ++v) {
    key[v] = win[v] - wout[v];
    if (fixin[v] == 0) candidates.insert({key[v], v});
  }
  auto rekey = [&](int v) {
    if (fixin[v] == 0) candidates.erase({key[v], v});
    key[v] = win[v] - wout[v];
    if (fixin[v] == 0) candidates.insert({key[v], v});
  };
  std::vector<int> sinks, sources, front, back;
  for (int v = 0; v < n; ++v) {
    if (outdeg[v] == 0) sinks.push_back(v);
    if (indeg[v] == 0) sources.push_back(v);
  }
  auto remove = [&](int v) {
    alive[v] = 0;
    if (fixin[v] == 0) candidates.erase({key[v], v});
    for (int a : g.out[v]) {
      const Arc& arc = g.arcs[a];
      const int u = arc.to;
      if (u == v || !alive[u]) continue;
      if (arc.fixed) {
        if (--fixin[u] == 0) {
          key[u] = win[u] - wout[u];
          candidates.insert({key[u], u});
        }
      } else {
        win[u] -= w[a];
        rekey(u);
      }
      if (--indeg[u] == 0) sources.push_back(u);
    }
    for (int a : g.in[v]) {
      const Arc& arc = g.arcs[a];
      const int u = arc.from;
      if (u == v || !alive[u]) continue;
      if (!arc.fixed) {
        wout[u] -= w[a];
        rekey(u);
      }
      if (--outdeg[u] == 0) sinks.push_back(u);
    }
  };
  int left = n;
  while (left > 0) {
    bool progress = true;
    while (progress) {
      progress = false;
      while (!sinks.empty()) {
        const int v = sinks.back();
        sinks.pop_back();
        if (!alive[v]) continue;
        remove(v);
        back.push_back(v);
        --left;
        progress = true;
      }
      while (!sources.empty()) {
        const int v = sources.back();
        sources.pop_back();
        if (!alive[v]) continue;
        remove(v);
        front.push_back(v);
        --left;
        progress = true;
      }
    }
    if (left == 0) break;
    CUT_CHECK(!candidates.empty());
    const int v = candidates.begin()->second;
    remove(v);
    front.push_back(v);
    --left;
  }
  front.insert(front.end(), back.rbegin(), back.rend());
  return front;
}

// Moves single nodes to the best position in the order (sifting), as long as
// that lowers the weight of backward arcs. Never moves a node across a fixed
// arc. Work is bounded by a step count, so the result does not depend on the
// clock (the deadline only stops it when the whole time limit is spent).
void sift(const Group& g, const std::vector<double>& w, std::vector<int>& order, std::mt19937& rng,
          const Deadline& clock, long long& budget) {
  const int n = g.n;
  if (n < 3) return;
  std::vector<int> pos(n);
  for (int i = 0; i < n; ++i) pos[order[i]] = i;
  std::vector<double> wo(n, 0), wi(n, 0);
  std::vector<char> fo(n, 0), fi(n, 0);
  const long long window = std::max<long long>(64, 20'000'000LL / n);
  std::vector<int> visit(n);
  for (int pass = 0; pass < 30 && budget > 0; ++pass) {
    bool improved = false;
    std::iota(visit.begin(), visit.end(), 0);
    if (pass > 0)
      for (int i = n - 1; i > 0; --i) std::swap(visit[i], visit[rng() % static_cast<unsigned>(i + 1)]);
    for (int v : visit) {
      if (budget <= 0 || clock.passed()) break;
      for (int a : g.out[v]) {
        const Arc& arc = g.arcs[a];
        if (arc.to == v) continue;
        if (arc.fixed)
          fo[arc.to] = 1;
        else
          wo[arc.to] += w[a];
      }
      for (int a : g.in[v]) {
        const Arc& arc = g.arcs[a];
        if (arc.from == v) continue;
        if (arc.fixed)
          fi[arc.from] = 1;
        else
          wi[arc.from] += w[a];
      }
      const int p = pos[v];
      double delta = 0, best = -tolerance(1);
      int target = p, lo = p, hi = p;
      for (int q = p - 1; q >= 0 && p - q <= window; --q) {
        const int u = order[q];
        lo = q;
        if (fi[u]) break;
        delta += wi[u] - wo[u];
        if (delta < best) best = delta, target = q;
      }
      delta = 0;
      for (int q = p + 1; q < n && q - p <= window; ++q) {
        const int u = order[q];
        hi = q;
        if (fo[u]) break;
        delta += wo[u] - wi[u];
        if (delta < best) best = delta, target = q;
      }
      budget -= (hi - lo) + static_cast<long long>(g.out[v].size() + g.in[v].size());
      for (int a : g.out[v]) wo[g.arcs[a].to] = 0, fo[g.arcs[a].to] = 0;
      for (int a : g.in[v]) wi[g.arcs[a].from] = 0, fi[g.arcs[a].from] = 0;
      if (target == p) continue;
      improved = true;
      if (target < p)
        std::rotate(order.begin() + target, order.begin() + p, order.begin() + p + 1);
      else
        std::rotate(order.begin() + p, order.begin() + p + 1, order.begin() + target + 1);
      for (int i = std::min(p, target); i <= std::max(p, target); ++i) pos[order[i]] = i;
    }
    if (!improved) break;
  }
}

// The statements to cut for the arcs that point backward in `order`: arcs with
// a single removable edge first (no choice), then for each arc still there the
// edge with the lowest cost per backward arc it removes (its statements may sit
// on edges of other backward arcs, too).
std::vector<char> cuts_from_order(const Group& g, const std::vector<int>& order) {
  std::vector<int> pos(g.n);
  for (int i = 0; i < g.n; ++i) pos[order[i]] = i;
  std::vector<char> cut(g.cost.size(), 0), backward(g.arcs.size(), 0), gone(g.arcs.size(), 0);
  std::vector<int> todo;
  for (std::size_t a = 0; a < g.arcs.size(); ++a)
    if (pos[g.arcs[a].from] >= pos[g.arcs[a].to]) {
      CUT_CHECK(!g.arcs[a].fixed);
      backward[a] = 1;
      todo.push_back(static_cast<int>(a));
    }
  auto removable_edges = [&](int a) {
    int count = 0;
    for (int e : g.arcs[a].edges) count += !g.edge_stmts[e].empty();
    return count;
  };
  std::stable_sort(todo.begin(), todo.end(),
                   [&](int x, int y) { return (removable_edges(x) > 1) < (removable_edges(y) > 1); });
  std::vector<int> seen(g.arcs.size(), -1), added;
  int stamp = 0;
  // Cuts e's statements; returns the backward arcs that newly disappear (and,
  // when `undo`, takes the cut back).
  auto apply = [&](int e, bool undo) {
    added.clear();
    for (int s : g.edge_stmts[e])
      if (!cut[s]) cut[s] = 1, added.push_back(s);
    ++stamp;
    int count = 0;
    for (int s : added)
      for (int f : g.stmt_edges[s]) {
        const int b = g.edge_arc[f];
        if (!backward[b] || gone[b] || seen[b] == stamp || !edge_removed(g, f, cut)) continue;
        seen[b] = stamp;
        ++count;
        if (!undo) gone[b] = 1;
      }
    if (undo)
      for (int s : added) cut[s] = 0;
    return count;
  };
  for (int a : todo) {
    if (gone[a]) continue;
    int best_edge = -1;
    double best = kInf;
    for (int e : g.arcs[a].edges) {
      if (g.edge_stmts[e].empty()) continue;
      double marginal = 0;
      for (int s : g.edge_stmts[e])
        if (!cut[s]) marginal += g.cost[s];
      const double ratio = marginal / std::max(1, apply(e, true));
      if (ratio < best) best = ratio, best_edge = e;
    }
    apply(best_edge, false);
    gone[a] = 1;
  }
  return cut;
}

// Makes a feasible cut set minimal: tries to keep each cut statement, most
// expensive first, and keeps it whenever the graph stays acyclic.
void prune(const Group& g, std::vector<char>& cut) {
  std::vector<int> removed_edges(g.arcs.size(), 0);  // per arc: removed edges on it
  std::vector<char> edge_gone(g.edge_stmts.size(), 0);
  for (std::size_t e = 0; e < g.edge_stmts.size(); ++e)
    if (edge_removed(g, static_cast<int>(e), cut)) edge_gone[e] = 1, ++removed_edges[g.edge_arc[e]];
  std::vector<char> gone(g.arcs.size());
  for (std::size_t a = 0; a < g.arcs.size(); ++a) gone[a] = removed_edges[a] > 0;
  std::vector<int> pos;
  CUT_CHECK(acyclic(g, gone, &pos));

  std::vector<int> order;
  for (std::size_t s = 0; s < cut.size(); ++s)
    if (cut[s]) order.push_back(static_cast<int>(s));
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return g.cost[x] > g.cost[y]; });

  std::vector<int> seen(g.n, -1), stack;
  int stamp = 0;
  // Is there a path from `from` to `to` over present arcs? Only nodes at
  // topological positions up to pos[to] can lie on one.
  auto reaches = [&](int from, int to) {
    ++stamp;
    stack.assign(1, from);
    seen[from] = stamp;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      if (v == to) return true;
      for (int a : g.out[v]) {
        const int u = g.arcs[a].to;
        if (gone[a] || seen[u] == stamp || pos[u] > pos[to]) continue;
        seen[u] = stamp;
        stack.push_back(u);
      }
    }
    return false;
  };

  std::vector<int> freed_edges, restored;
  for (int s : order) {
    freed_edges.clear();
    restored.clear();
    for (int e : g.stmt_edges[s]) {
      if (!edge_gone[e]) continue;
      freed_edges.push_back(e);
      if (--removed_edges[g.edge_arc[e]] == 0) restored.push_back(g.edge_arc[e]);
    }
    int backward = 0, last = -1;
    for (int a : restored)
      if (pos[g.arcs[a].from] >= pos[g.arcs[a].to]) ++backward, last = a;
    bool keep_cut;
    if (backward == 0) {
      keep_cut = false;
      for (int a : restored) gone[a] = 0;
    } else if (backward == 1 && g.arcs[last].from != g.arcs[last].to) {
      for (int a : restored)
        if (a != last) gone[a] = 0;  // forward arcs keep the order valid
      keep_cut = reaches(g.arcs[last].to, g.arcs[last].from);
      if (!keep_cut) {
        gone[last] = 0;
        CUT_CHECK(acyclic(g, gone, &pos));
      }
    } else {
      for (int a : restored) gone[a] = 0;
      std::vector<int> new_pos;
      keep_cut = !acyclic(g, gone, &new_pos);
      if (!keep_cut) pos = std::move(new_pos);
    }
    if (keep_cut) {
      for (int a : restored) gone[a] = 1;
      for (int e : freed_edges) ++removed_edges[g.edge_arc[e]];
      continue;
    }
    cut[s] = 0;
    for (int e : freed_edges) edge_gone[e] = 0;
  }
}

// What removing arc a costs on top of `cut`: its cheapest removable edge.
double arc_marginal(const Group& g, int a, const std::vector<char>& cut, int* best_edge) {
  double best = kInf;
  *best_edge = -1;
  for (int e : g.arcs[a].edges) {
    if (g.edge_stmts[e].empty()) continue;
    double m = 0;
    for (int s : g.edge_stmts[e])
      if (!cut[s]) m += g.cost[s];
    if (m < best) best = m, *best_edge = e;
  }
  return best;
}

void cut_edge(const Group& g, int e, std::vector<char>& cut) {
  for (int s : g.edge_stmts[e]) cut[s] = 1;
}

// Local search by minimum cuts. Un-cutting a statement s brings back arcs; when
// it is one arc u -> w, the cycles it closes are that arc plus the paths
// w ~> u of the acyclic rest. Breaking them again costs the cheaper of another
// edge on the arc's own chain and a minimum w-u cut (capacity of an arc: its
// marginal cost; fixed arcs: infinite). When that is cheaper than s, swap.
// Work is counted in arcs scanned.
void improve_by_min_cuts(const Group& g, std::vector<char>& cut, long long& budget, const Deadline& clock) {
  std::vector<char> gone = gone_arcs(g, cut);
  std::vector<int> pos;
  CUT_CHECK(acyclic(g, gone, &pos));
  std::vector<int> fwd(g.n, 0), bwd(g.n, 0), local(g.n, -1), stack;
  int stamp = 0;
  // Residual network on the nodes between w and u.
  struct FlowArc {
    int to, rev;
    double cap;
    int arc;  // group arc, -1 for a reverse arc
  };
  std::vector<std::vector<FlowArc>> net;
  std::vector<int> nodes, prev_node, prev_arc, queue;

  for (int round = 0; round < 4; ++round) {
    bool improved = false;
    std::vector<int> order;
    for (std::size_t s = 0; s < cut.size(); ++s)
      if (cut[s]) order.push_back(static_cast<int>(s));
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return g.cost[x] > g.cost[y]; });
    for (int s : order) {
      if (budget <= 0 || clock.passed()) return;
      if (!cut[s]) continue;
      cut[s] = 0;
      std::vector<int> freed;
      for (int e : g.stmt_edges[s]) {
        const int a = g.edge_arc[e];
        if (!gone[a] || std::find(freed.begin(), freed.end(), a) != freed.end()) continue;
        bool still = false;
        for (int f : g.arcs[a].edges) still = still || edge_removed(g, f, cut);
        if (!still) freed.push_back(a);
      }
      if (freed.size() > 1) {
        cut[s] = 1;
        continue;
      }
      if (freed.empty()) {  // s was not needed
        improved = true;
        continue;
      }
      const int a = freed[0], u = g.arcs[a].from, w = g.arcs[a].to;
      int chain_edge = -1;
      const double chain_cost = arc_marginal(g, a, cut, &chain_edge);
      const double limit = std::min(g.cost[s], chain_cost);
      double flow = 0;
      std::vector<int> cut_arcs;
      bool reachable = false;
      if (u != w) {
        // Nodes on some path w ~> u: forward from w, backward from u, within pos[w]..pos[u].
        ++stamp;
        stack.assign(1, w);
        fwd[w] = stamp;
        while (!stack.empty()) {
          const int v = stack.back();
          stack.pop_back();
          for (int b : g.out[v]) {
            --budget;
            const int x = g.arcs[b].to;
            if (gone[b] || b == a || fwd[x] == stamp || pos[x] > pos[u]) continue;
            fwd[x] = stamp;
            stack.push_back(x);
          }
        }
        reachable = fwd[u] == stamp;
      }
      if (reachable) {
        nodes.clear();
        stack.assign(1, u);
        bwd[u] = stamp;
        while (!stack.empty()) {
          const int v = stack.back();
          stack.pop_back();
          local[v] = static_cast<int>(nodes.size());
          nodes.push_back(v);
          for (int b : g.in[v]) {
            --budget;
            const int x = g.arcs[b].from;
            if (gone[b] || b == a || bwd[x] == stamp || fwd[x] != stamp) continue;
            bwd[x] = stamp;
            stack.push_back(x);
          }
        }
        net.assign(nodes.size(), {});
        for (int v : nodes)
          for (int b : g.out[v]) {
            --budget;
            const int x = g.arcs[b].to;
            if (gone[b] || b == a || bwd[x] != stamp) continue;
            int unused = -1;
            const double cap = g.arcs[b].fixed ? kInf : arc_marginal(g, b, cut, &unused);
            const int lv = local[v], lx = local[x];
            net[lv].push_back({lx, static_cast<int>(net[lx].size()), cap, b});
            net[lx].push_back({lv, static_cast<int>(net[lv].size()) - 1, 0, -1});
          }
        // Edmonds-Karp, stopped as soon as the flow reaches `limit`.
        const int src = local[w], dst = local[u];
        prev_node.assign(nodes.size(), -1);
        prev_arc.assign(nodes.size(), -1);
        while (flow < limit - tolerance(limit)) {
          budget -= static_cast<long long>(nodes.size());
          std::fill(prev_node.begin(), prev_node.end(), -1);
          queue.assign(1, src);
          prev_node[src] = src;
          for (std::size_t head = 0; head < queue.size() && prev_node[dst] < 0; ++head) {
            const int v = queue[head];
            for (std::size_t i = 0; i < net[v].size(); ++i) {
              --budget;
              const FlowArc& fa = net[v][i];
              if (fa.cap <= 1e-12 || prev_node[fa.to] >= 0) continue;
              prev_node[fa.to] = v;
              prev_arc[fa.to] = static_cast<int>(i);
              queue.push_back(fa.to);
            }
          }
          if (prev_node[dst] < 0) break;
          double push = kInf;
          for (int v = dst; v != src; v = prev_node[v]) push = std::min(push, net[prev_node[v]][prev_arc[v]].cap);
          if (!std::isfinite(push)) {
            flow = kInf;
            break;
          }
          for (int v = dst; v != src; v = prev_node[v]) {
            FlowArc& fa = net[prev_node[v]][prev_arc[v]];
            fa.cap -= push;
            net[v][fa.rev].cap += push;
          }
          flow += push;
        }
        if (flow < limit - tolerance(limit)) {
          // The minimum cut: arcs from the residual-reachable side to the rest.
          for (int v = 0; v < static_cast<int>(nodes.size()); ++v) {
            if (prev_node[v] < 0) continue;
            for (const FlowArc& fa : net[v])
              if (fa.arc >= 0 && prev_node[fa.to] < 0) cut_arcs.push_back(fa.arc);
          }
        }
      }
      if (reachable && flow >= limit - tolerance(limit)) {
        if (chain_cost < g.cost[s] - tolerance(g.cost[s]))
          cut_edge(g, chain_edge, cut);
        else {
          cut[s] = 1;  // keep s: nothing cheaper breaks its cycles
          continue;
        }
      } else if (reachable) {
        for (int b : cut_arcs) {
          int e = -1;
          arc_marginal(g, b, cut, &e);
          cut_edge(g, e, cut);
        }
      } else if (u == w) {
        if (chain_cost < g.cost[s] - tolerance(g.cost[s]))
          cut_edge(g, chain_edge, cut);
        else {
          cut[s] = 1;
          continue;
        }
      }
      improved = true;
      gone = gone_arcs(g, cut);
      budget -= 3 * static_cast<long long>(g.arcs.size() + g.edge_stmts.size() + g.n);
      CUT_CHECK(acyclic(g, gone, &pos));
    }
    if (!improved) break;
  }
}

// ---------------------------------------------------------------------------
// Lower bound: a fractional packing of short cycles, i.e. a feasible solution
// of the dual of the LP relaxation. Each cycle gets a value z; every removable
// edge on it draws z from the residual costs of its statements, in proportion
// to them, and z is as large as no statement going negative allows (so each
// cycle empties at least one statement, and the packing ends). The same
// packing over a given list of loops bounds the hitting problem (solve_hitting).
//
// One step of the packing: the cycle (its removable edges, each with positive
// residual) gets the largest value z its statements can pay, and pays it.
// Updates the residual costs and the edges' sums of them; `inv` is scratch
// (all zero before and after).
double pack_cycle(const Group& g, const std::vector<int>& cycle_edges, std::vector<double>& residual,
                  std::vector<double>& edge_res, std::vector<double>& inv) {
  CUT_CHECK(!cycle_edges.empty());
  for (int e : cycle_edges)
    for (int s : g.edge_stmts[e]) inv[s] += 1.0 / edge_res[e];
  double z = kInf;
  int tight = -1;
  for (int e : cycle_edges)
    for (int s : g.edge_stmts[e])
      if (residual[s] > 0 && 1.0 / inv[s] < z) z = 1.0 / inv[s], tight = s;
  CUT_CHECK(tight >= 0);
  for (int e : cycle_edges)
    for (int s : g.edge_stmts[e]) {
      if (inv[s] == 0) continue;
      residual[s] = s == tight ? 0.0 : std::max(0.0, residual[s] - z * residual[s] * inv[s]);
      inv[s] = 0;
    }
  for (int e : cycle_edges)
    for (int s : g.edge_stmts[e])
      for (int f : g.stmt_edges[s]) {
        double sum = 0;
        for (int t : g.edge_stmts[f]) sum += residual[t];
        edge_res[f] = sum;
      }
  return z;
}

// The packing over short cycles found by breadth-first search.
double packing_bound(const Group& g, long long budget, const Deadline& clock) {
  std::vector<double> residual = g.cost;
  double eps = 0;
  for (double c : g.cost) eps = std::max(eps, c);
  eps *= 1e-12;
  std::vector<double> edge_res(g.edge_stmts.size(), 0);
  for (std::size_t e = 0; e < g.edge_stmts.size(); ++e)
    for (int s : g.edge_stmts[e]) edge_res[e] += residual[s];
  auto arc_open = [&](int a) {
    for (int e : g.arcs[a].edges)
      if (!g.edge_stmts[e].empty() && edge_res[e] <= eps) return false;
    return true;
  };
  std::vector<char> open(g.arcs.size());
  for (std::size_t a = 0; a < g.arcs.size(); ++a) open[a] = arc_open(static_cast<int>(a));

  double bound = 0;
  std::vector<int> parent(g.n, -1), seen(g.n, -1), queue, cycle_edges;
  std::vector<double> inv(g.cost.size(), 0);
  int stamp = 0;
  for (int root = 0; root < g.n && budget > 0; ++root) {
    while (budget > 0 && !clock.passed()) {
      // Shortest cycle through root over open arcs.
      ++stamp;
      queue.assign(1, root);
      seen[root] = stamp;
      int closing = -1;
      for (std::size_t head = 0; head < queue.size() && closing < 0; ++head) {
        const int v = queue[head];
        for (int a : g.out[v]) {
          --budget;
          if (!open[a]) continue;
          const int u = g.arcs[a].to;
          if (u == root) {
            closing = a;
            break;
          }
          if (seen[u] == stamp) continue;
          seen[u] = stamp;
          parent[u] = a;
          queue.push_back(u);
        }
      }
      if (closing < 0) break;
      cycle_edges.clear();
      for (int a = closing;;) {
        for (int e : g.arcs[a].edges)
          if (!g.edge_stmts[e].empty()) cycle_edges.push_back(e);
        const int v = g.arcs[a].from;
        if (v == root) break;
        a = parent[v];
      }
      bound += pack_cycle(g, cycle_edges, residual, edge_res, inv);
      for (int e : cycle_edges)
        for (int s : g.edge_stmts[e])
          for (int f : g.stmt_edges[s]) open[g.edge_arc[f]] = arc_open(g.edge_arc[f]);
    }
  }
  return bound;
}

// A topological order of the graph left by `gone`, as close to `previous`
// (a position per node) as Kahn's algorithm can keep it.
std::vector<int> order_near(const Group& g, const std::vector<char>& gone, const std::vector<int>& previous) {
  std::vector<int> indeg(g.n, 0), order;
  for (std::size_t a = 0; a < g.arcs.size(); ++a)
    if (!gone[a]) ++indeg[g.arcs[a].to];
  std::set<std::pair<int, int>> ready;
  for (int v = 0; v < g.n; ++v)
    if (indeg[v] == 0) ready.insert({previous[v], v});
  while (!ready.empty()) {
    const int v = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(v);
    for (int a : g.out[v])
      if (!gone[a] && --indeg[g.arcs[a].to] == 0) ready.insert({previous[g.arcs[a].to], g.arcs[a].to});
  }
  CUT_CHECK(static_cast<int>(order.size()) == g.n);
  return order;
}

// Upper bound: orderings from three weight models (Eades-Lin-Smyth, then
// sifting), each turned into statements and pruned; the best one improved by
// minimum cuts; then iterated: sift the order the best plan leaves (with the
// weights perturbed once that stops helping), cut, prune, improve. All work is
// counted, so the plan does not depend on the clock.
void solve_heuristic(Group& g, unsigned seed, long long work, const Deadline& clock) {
  std::mt19937 rng(seed * 2654435761u + 12345u);
  long long budget = work;
  int best_model = 0;
  std::vector<int> best_order;
  auto consider = [&](std::vector<char> cut, const std::vector<int>& order, int model, bool polish) {
    prune(g, cut);
    if (polish) {
      improve_by_min_cuts(g, cut, budget, clock);
      prune(g, cut);
    }
    budget -= static_cast<long long>(g.arcs.size() + g.edge_stmts.size() + g.n) * 8;
    const double c = cut_cost(g, cut);
    if (!best_order.empty() && c >= g.cost_value - tolerance(g.cost_value)) return false;
    g.cut = std::move(cut);
    g.cost_value = c;
    best_order = order;
    best_model = model;
    return true;
  };
  for (int model = 0; model < 3; ++model) {
    if (!best_order.empty() && clock.passed()) break;
    const std::vector<double> w = arc_weights(g, model);
    std::vector<int> order = els_order(g, w);
    sift(g, w, order, rng, clock, budget);
    consider(cuts_from_order(g, order), order, model, false);
  }
  improve_by_min_cuts(g, g.cut, budget, clock);
  prune(g, g.cut);
  g.cost_value = cut_cost(g, g.cut);
  const std::vector<double> base = arc_weights(g, best_model);
  std::vector<double> w = base;
  std::vector<int> previous(g.n);
  for (int stall = 0; stall < 30 && budget > 0 && !clock.passed();) {
    for (int i = 0; i < g.n; ++i) previous[best_order[i]] = i;
    std::vector<int> order = order_near(g, gone_arcs(g, g.cut), previous);
    if (stall > 0)
      for (std::size_t a = 0; a < w.size(); ++a) w[a] = base[a] * (0.6 + 0.8 * (rng() % 1024) / 1024.0);
    sift(g, w, order, rng, clock, budget);
    if (consider(cuts_from_order(g, order), order, best_model, true)) {
      stall = 0;
      w = base;
    } else {
      ++stall;
    }
  }
  g.lower_bound = std::min(packing_bound(g, work / 2, clock), g.cost_value);
  g.optimal = g.cost_value <= g.lower_bound + tolerance(g.cost_value);
}

// ---------------------------------------------------------------------------
// Exact: integer program with lazily generated cycle constraints.
//
//   min  sum c_s x_s      x_s binary: statement s is cut
//   y_e <= x_s            for each statement s of a removable edge e with 2+ statements
//   sum_{e in C} y_e >= 1 for each cycle C found so far (y_e = x_s for one-statement edges)
//
// y is continuous: with x integral, y_e > 0 forces every statement of e, so a
// satisfied cycle row always has a removed edge.

#ifdef CYCLEFIX_HAVE_CBC

// Shortest cycles (over arcs that are not gone) through every present arc
// inside a cyclic component of the present graph: one breadth-first search from
// each node w closes a cycle through every arc entering w.
void shortest_cycles(const Group& g, const std::vector<char>& gone, const Deadline& clock,
                     std::vector<std::vector<int>>& cycles) {
  std::vector<std::vector<int>> succ(g.n);
  for (std::size_t a = 0; a < g.arcs.size(); ++a)
    if (!gone[a]) succ[g.arcs[a].from].push_back(g.arcs[a].to);
  int count = 0;
  const std::vector<int> comp = strong_components(succ, &count);
  std::vector<int> size(count, 0);
  for (int c : comp) ++size[c];
  std::vector<int> dist(g.n, -1), parent(g.n, -1), queue;
  for (int w = 0; w < g.n; ++w) {
    if ((w & 63) == 0 && clock.passed()) return;
    bool wanted = false;
    for (int a : g.in[w])
      if (!gone[a] && comp[g.arcs[a].from] == comp[w] && (size[comp[w]] > 1 || g.arcs[a].from == w))
        wanted = true;
    if (!wanted) continue;
    std::fill(dist.begin(), dist.end(), -1);
    queue.assign(1, w);
    dist[w] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const int v = queue[head];
      for (int a : g.out[v]) {
        const int u = g.arcs[a].to;
        if (gone[a] || dist[u] >= 0 || comp[u] != comp[w]) continue;
        dist[u] = dist[v] + 1;
        parent[u] = a;
        queue.push_back(u);
      }
    }
    for (int a : g.in[w]) {
      const int u = g.arcs[a].from;
      if (gone[a] || dist[u] < 0) continue;
      std::vector<int> cycle{a};
      for (int v = u; v != w; v = g.arcs[parent[v]].from) cycle.push_back(parent[v]);
      cycles.push_back(std::move(cycle));
    }
  }
}

struct CbcModelOwner {
  Cbc_Model* model = Cbc_newModel();
  CbcModelOwner() = default;
  CbcModelOwner(const CbcModelOwner&) = delete;
  CbcModelOwner& operator=(const CbcModelOwner&) = delete;
  ~CbcModelOwner() { Cbc_deleteModel(model); }
};

// The integer program over a group's statements with covering rows "at least
// one of these edges is removed": cycle rows for solve_ilp, the given loops for
// solve_hitting. Columns: statements, then one y per distinct statement set of
// 2+ statements.
class CoverIlp {
 public:
  explicit CoverIlp(const Group& g) : g_(g), k_(static_cast<int>(g.cost.size())), edge_var_(g.edge_stmts.size(), -1) {
    std::map<std::vector<int>, int> y_of;
    for (std::size_t e = 0; e < g.edge_stmts.size(); ++e) {
      const auto& st = g.edge_stmts[e];
      if (st.empty()) continue;
      if (st.size() == 1) {
        edge_var_[e] = st[0];
        continue;
      }
      auto [it, inserted] = y_of.emplace(st, k_ + static_cast<int>(y_stmts_.size()));
      if (inserted) y_stmts_.push_back(st);
      edge_var_[e] = it->second;
    }
    columns_ = k_ + static_cast<int>(y_stmts_.size());
  }

  // Adds the row for these local edges (the non-removable ones are ignored);
  // false when the same row is already there.
  bool add_row(const std::vector<int>& edges) {
    std::vector<int> row;
    for (int e : edges)
      if (edge_var_[e] >= 0) row.push_back(edge_var_[e]);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    CUT_CHECK(!row.empty());
    if (!known_.insert(row).second) return false;
    rows_.push_back(std::move(row));
    return true;
  }

  enum class Status {
    NoTime,   // not solved: too little time left for the root
    Stopped,  // CBC stopped before proving optimality; `bound` is its best possible objective (or -inf)
    Optimal,  // `cut` is an optimal solution of the rows so far, `bound` its objective
  };
  struct Outcome {
    Status status = Status::NoTime;
    double bound = -kInf;
    std::vector<char> cut;
  };

  // One CBC run, with `start` (which must satisfy every row) as the MIP start.
  Outcome solve(const std::vector<char>& start, unsigned seed, const Deadline& clock) const {
    Outcome out;
    const double left = clock.remaining();
    if (left <= 0.05) return out;
    // Column-major matrix: link rows y - x_s <= 0 first, then the covering rows.
    std::vector<std::vector<std::pair<int, double>>> col(columns_);
    std::vector<double> row_lb, row_ub;
    int r = 0;
    for (std::size_t y = 0; y < y_stmts_.size(); ++y)
      for (int s : y_stmts_[y]) {
        col[k_ + y].push_back({r, 1.0});
        col[s].push_back({r, -1.0});
        row_lb.push_back(-DBL_MAX);
        row_ub.push_back(0);
        ++r;
      }
    for (const auto& row : rows_) {
      for (int v : row) col[v].push_back({r, 1.0});
      row_lb.push_back(1);
      row_ub.push_back(DBL_MAX);
      ++r;
    }
    std::vector<CoinBigIndex> starts{0};
    std::vector<int> index;
    std::vector<double> value;
    for (const auto& c : col) {
      for (auto [row, coef] : c) index.push_back(row), value.push_back(coef);
      starts.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    std::vector<double> col_lb(columns_, 0), col_ub(columns_, 1), obj(columns_, 0);
    for (int s = 0; s < k_; ++s) obj[s] = g_.cost[s];

    CbcModelOwner owner;
    Cbc_Model* m = owner.model;
    Cbc_loadProblem(m, columns_, r, starts.data(), index.data(), value.data(), col_lb.data(), col_ub.data(),
                    obj.data(), row_lb.data(), row_ub.data());
    for (int s = 0; s < k_; ++s) Cbc_setInteger(m, s);
    const std::string seed_text = std::to_string(1 + seed % 1000000);
    Cbc_setLogLevel(m, 0);
    Cbc_setParameter(m, "log", "0");
    Cbc_setParameter(m, "slog", "0");
    Cbc_setParameter(m, "threads", "0");
    Cbc_setParameter(m, "randomCbcSeed", seed_text.c_str());
    Cbc_setParameter(m, "randomSeed", seed_text.c_str());
    Cbc_setParameter(m, "timeMode", "elapsed");
    // CBC looks at the clock between nodes, not inside the root LP: keep a
    // reserve, skip a round whose root alone would not fit, and on big models
    // make nodes cheap (no strong branching, no diving heuristics; the
    // heuristic's plan is the MIP start anyway) so the time check comes often.
    const bool big = index.size() > 20000;
    if (std::isfinite(left)) {
      const double allowance = left * 0.9 - 0.1;
      if (allowance < 6e-5 * static_cast<double>(index.size()) || allowance <= 0.05) return out;
      Cbc_setMaximumSeconds(m, allowance);
    }
    if (big) {
      Cbc_setParameter(m, "strongBranching", "0");
      Cbc_setParameter(m, "trustPseudoCosts", "0");
      Cbc_setParameter(m, "heuristicsOnOff", "off");
    }
    // The start: the statements of `start`, and each y at the minimum of its statements.
    std::vector<int> start_idx(columns_);
    std::vector<double> start_val(columns_);
    std::iota(start_idx.begin(), start_idx.end(), 0);
    for (int s = 0; s < k_; ++s) start_val[s] = start[s] ? 1 : 0;
    for (std::size_t y = 0; y < y_stmts_.size(); ++y) {
      double v = 1;
      for (int s : y_stmts_[y]) v = std::min(v, start_val[s]);
      start_val[k_ + y] = v;
    }
    Cbc_setMIPStartI(m, columns_, start_idx.data(), start_val.data());
    Cbc_solve(m);

    if (!Cbc_isProvenOptimal(m)) {
      out.status = Status::Stopped;
      const double possible = Cbc_getBestPossibleObjValue(m);
      if (std::isfinite(possible)) out.bound = possible;
      return out;
    }
    out.status = Status::Optimal;
    out.bound = Cbc_getObjValue(m);
    const double* x = Cbc_getColSolution(m);
    CUT_CHECK(x != nullptr);
    out.cut.assign(k_, 0);
    for (int s = 0; s < k_; ++s) out.cut[s] = x[s] > 0.5;
    return out;
  }

 private:
  const Group& g_;
  int k_ = 0, columns_ = 0;
  std::vector<int> edge_var_;  // per local edge: its statement's column, its y column, or -1 (not removable)
  std::vector<std::vector<int>> y_stmts_;
  std::set<std::vector<int>> known_;
  std::vector<std::vector<int>> rows_;
};

void solve_ilp(Group& g, unsigned seed, const Deadline& clock) {
  CoverIlp ilp(g);
  auto add_cycles = [&](const std::vector<std::vector<int>>& cycles) {
    int added = 0;
    std::vector<int> edges;
    for (const auto& cycle : cycles) {
      edges.clear();
      for (int a : cycle) edges.insert(edges.end(), g.arcs[a].edges.begin(), g.arcs[a].edges.end());
      added += ilp.add_row(edges);
    }
    return added;
  };
  {
    std::vector<std::vector<int>> seeds;
    shortest_cycles(g, std::vector<char>(g.arcs.size(), 0), clock, seeds);
    add_cycles(seeds);
  }

  // The heuristic's plan satisfies every cycle row: the MIP start of each round.
  const std::vector<char> start = g.cut;
  double bound = g.lower_bound;
  while (true) {
    CoverIlp::Outcome out = ilp.solve(start, seed, clock);
    if (out.status == CoverIlp::Status::NoTime) break;
    if (out.status == CoverIlp::Status::Stopped) {
      bound = std::max(bound, out.bound);
      break;
    }
    bound = std::max(bound, out.bound);
    const std::vector<char> gone = gone_arcs(g, out.cut);
    if (acyclic(g, gone)) {
      g.used_ilp = true;
      g.optimal = true;
      const double c = cut_cost(g, out.cut);
      if (c < g.cost_value + tolerance(g.cost_value)) {
        g.cut = std::move(out.cut);
        g.cost_value = c;
      }
      g.lower_bound = g.cost_value;
      return;
    }
    std::vector<std::vector<int>> violated;
    shortest_cycles(g, gone, clock, violated);
    if (clock.passed()) break;
    CUT_CHECK(add_cycles(violated) > 0);  // the solution satisfied every known row
  }
  g.used_ilp = true;
  g.lower_bound = std::min(std::max(g.lower_bound, bound), g.cost_value);
  g.optimal = g.cost_value <= g.lower_bound + tolerance(g.cost_value);
}

#endif  // CYCLEFIX_HAVE_CBC

void validate(const CutInstance& in) {
  if (in.statement_cost.size() != in.statement_cuttable.size())
    throw std::invalid_argument("cut instance: statement_cost and statement_cuttable differ in size");
  for (std::size_t s = 0; s < in.statement_cost.size(); ++s)
    if (in.statement_cuttable[s] && !(in.statement_cost[s] > 0 && std::isfinite(in.statement_cost[s])))
      throw std::invalid_argument("cut instance: statement " + std::to_string(s) +
                                  " is cuttable but its cost is not a positive number");
  for (std::size_t e = 0; e < in.edges.size(); ++e) {
    const auto& edge = in.edges[e];
    if (edge.from >= in.nodes || edge.to >= in.nodes)
      throw std::invalid_argument("cut instance: edge " + std::to_string(e) + " has a node out of range");
    for (auto s : edge.statements)
      if (s >= in.statement_cost.size())
        throw std::invalid_argument("cut instance: edge " + std::to_string(e) + " names an unknown statement");
  }
}

// Loops through an unbreakable component over non-removable edges, covering its
// nodes (see CutSolution::unbreakable_cycles).
void report_unbreakable(const std::vector<std::vector<int>>& hout, const std::vector<int>& comp,
                        const std::vector<int>& members, CutSolution& sol) {
  const int n = static_cast<int>(hout.size());
  const int c = comp[members[0]];
  std::vector<char> covered(n, 0);
  std::vector<int> parent(n, -1), queue;
  std::vector<char> seen(n, 0);
  int loops = 0;
  for (int v : members) {
    if (covered[v] || loops >= 8) continue;
    std::fill(seen.begin(), seen.end(), 0);
    queue.assign(1, v);
    seen[v] = 1;
    int last = -1;
    for (std::size_t head = 0; head < queue.size() && last < 0; ++head) {
      const int x = queue[head];
      for (int y : hout[x]) {
        if (comp[y] != c) continue;
        if (y == v) {
          last = x;
          break;
        }
        if (seen[y]) continue;
        seen[y] = 1;
        parent[y] = x;
        queue.push_back(y);
      }
    }
    CUT_CHECK(last >= 0);
    std::vector<std::uint32_t> loop;
    for (int x = last; x != v; x = parent[x]) loop.push_back(static_cast<std::uint32_t>(x));
    loop.push_back(static_cast<std::uint32_t>(v));
    std::reverse(loop.begin(), loop.end());
    loop.push_back(static_cast<std::uint32_t>(v));
    for (auto x : loop) covered[x] = 1;
    sol.unbreakable_cycles.push_back(std::move(loop));
    sol.unbreakable_components.push_back(static_cast<std::uint32_t>(members[0]));
    ++loops;
  }
}

}  // namespace

CutSolution solve_cuts(const CutInstance& in, const CutOptions& options) {
  const Deadline clock(options.time_limit_s);
  validate(in);
  CutSolution sol;
  const int n = static_cast<int>(in.nodes);
  const std::size_t edge_count = in.edges.size(), stmt_count = in.statement_cost.size();

  // Edges in a canonical order (by ends, then statements), so that the order
  // the caller lists them in cannot change the plan.
  std::vector<CutInstance::Edge> edges = in.edges;
  for (auto& edge : edges) {
    std::sort(edge.statements.begin(), edge.statements.end());
    edge.statements.erase(std::unique(edge.statements.begin(), edge.statements.end()), edge.statements.end());
  }
  std::sort(edges.begin(), edges.end(), [](const CutInstance::Edge& x, const CutInstance::Edge& y) {
    return std::tie(x.from, x.to, x.statements) < std::tie(y.from, y.to, y.statements);
  });
  std::vector<std::vector<std::uint32_t>> stmts(edge_count);
  std::vector<char> removable(edge_count, 0);
  for (std::size_t e = 0; e < edge_count; ++e) {
    stmts[e] = edges[e].statements;
    removable[e] = !stmts[e].empty() &&
                   std::all_of(stmts[e].begin(), stmts[e].end(), [&](auto s) { return bool(in.statement_cuttable[s]); });
  }

  // 1. The subgraph of non-removable edges; its cyclic components stay cyclic.
  std::vector<std::vector<int>> hout(n);
  std::vector<char> h_self(n, 0);
  for (std::size_t e = 0; e < edge_count; ++e) {
    if (removable[e]) continue;
    hout[edges[e].from].push_back(static_cast<int>(edges[e].to));
    if (edges[e].from == edges[e].to) h_self[edges[e].from] = 1;
  }
  for (auto& list : hout) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  int hcount = 0;
  const std::vector<int> hcomp = strong_components(hout, &hcount);
  std::vector<std::vector<int>> hmembers(hcount);
  for (int v = 0; v < n; ++v) hmembers[hcomp[v]].push_back(v);
  std::vector<char> hcyclic(hcount, 0);
  for (int c = 0; c < hcount; ++c) hcyclic[c] = hmembers[c].size() > 1 || h_self[hmembers[c][0]];
  for (int c = 0; c < hcount; ++c)
    if (hcyclic[c]) report_unbreakable(hout, hcomp, hmembers[c], sol);

  // 2. Contract those components. A removable self-loop elsewhere must go: its
  //    statements are forced.
  std::vector<char> forced(stmt_count, 0);
  for (std::size_t e = 0; e < edge_count; ++e) {
    const int a = hcomp[edges[e].from], b = hcomp[edges[e].to];
    if (a == b && removable[e] && !hcyclic[a])
      for (auto s : stmts[e]) forced[s] = 1;
  }
  auto removed_by_forced = [&](std::size_t e) {
    return removable[e] && std::all_of(stmts[e].begin(), stmts[e].end(), [&](auto s) { return bool(forced[s]); });
  };
  // All present edges between the same two contracted nodes act as one edge:
  // it is gone only when each of them is, so it carries the union of their
  // statements and is removable only if each of them is.
  struct QEdge {
    int a = 0, b = 0;
    std::vector<std::uint32_t> stmts;
    bool removable = true;
  };
  std::vector<QEdge> qedges;
  {
    std::vector<std::size_t> present;
    for (std::size_t e = 0; e < edge_count; ++e)
      if (hcomp[edges[e].from] != hcomp[edges[e].to] && !removed_by_forced(e)) present.push_back(e);
    std::stable_sort(present.begin(), present.end(), [&](std::size_t x, std::size_t y) {
      return std::make_pair(hcomp[edges[x].from], hcomp[edges[x].to]) <
             std::make_pair(hcomp[edges[y].from], hcomp[edges[y].to]);
    });
    for (std::size_t e : present) {
      const int a = hcomp[edges[e].from], b = hcomp[edges[e].to];
      if (qedges.empty() || qedges.back().a != a || qedges.back().b != b) qedges.push_back({a, b, {}, true});
      QEdge& q = qedges.back();
      q.removable = q.removable && removable[e];
      for (auto st : stmts[e])
        if (!forced[st]) q.stmts.push_back(st);
    }
    for (QEdge& q : qedges) {
      std::sort(q.stmts.begin(), q.stmts.end());
      q.stmts.erase(std::unique(q.stmts.begin(), q.stmts.end()), q.stmts.end());
      if (!q.removable) q.stmts.clear();
      CUT_CHECK(!q.removable || !q.stmts.empty());
    }
  }
  std::vector<std::vector<int>> qout(hcount);
  for (const QEdge& q : qedges) qout[q.a].push_back(q.b);
  for (auto& list : qout) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }

  // 3. Strongly connected components of the contracted graph; components that
  //    share a statement are solved together.
  int qcount = 0;
  const std::vector<int> qcomp = strong_components(qout, &qcount);
  std::vector<int> qsize(qcount, 0);
  for (int c : qcomp) ++qsize[c];
  std::vector<int> uf(qcount);
  std::iota(uf.begin(), uf.end(), 0);
  auto find = [&](int x) {
    while (uf[x] != x) x = uf[x] = uf[uf[x]];
    return x;
  };
  std::vector<int> owner(stmt_count, -1);
  std::vector<int> inner;  // contracted edges inside a cyclic component
  for (std::size_t qe = 0; qe < qedges.size(); ++qe) {
    const QEdge& q = qedges[qe];
    if (qcomp[q.a] != qcomp[q.b]) continue;
    CUT_CHECK(qsize[qcomp[q.a]] > 1);
    inner.push_back(static_cast<int>(qe));
    for (auto st : q.stmts) {
      if (owner[st] < 0)
        owner[st] = qcomp[q.a];
      else
        uf[find(owner[st])] = find(qcomp[q.a]);
    }
  }
  std::map<int, int> group_of_root;  // keyed by the root's smallest component id below
  std::vector<int> group_index(qcount, -1);
  std::vector<Group> groups;
  for (int c = 0; c < qcount; ++c) {
    if (qsize[c] < 2) continue;
    const int root = find(c);
    auto [it, inserted] = group_of_root.emplace(root, static_cast<int>(groups.size()));
    if (inserted) groups.emplace_back();
    group_index[c] = it->second;
  }
  {
    // Local nodes: contracted nodes in ascending order; local statements: by id.
    std::vector<int> local_node(hcount, -1);
    for (int q = 0; q < hcount; ++q) {
      const int gi = qcomp[q] >= 0 && qsize[qcomp[q]] > 1 ? group_index[qcomp[q]] : -1;
      if (gi < 0) continue;
      Group& g = groups[gi];
      local_node[q] = g.n++;
    }
    std::vector<int> local_stmt(stmt_count, -1);
    std::vector<int> stmt_group(stmt_count, -1);
    for (int qe : inner)
      for (auto st : qedges[qe].stmts) stmt_group[st] = group_index[qcomp[qedges[qe].a]];
    for (std::size_t s = 0; s < stmt_count; ++s) {
      if (stmt_group[s] < 0) continue;
      Group& g = groups[stmt_group[s]];
      local_stmt[s] = static_cast<int>(g.stmt.size());
      g.stmt.push_back(static_cast<std::uint32_t>(s));
      g.cost.push_back(in.statement_cost[s]);
    }
    std::vector<std::vector<std::pair<int, int>>> ends(groups.size());
    for (int qe : inner) {
      const QEdge& q = qedges[qe];
      const int gi = group_index[qcomp[q.a]];
      std::vector<int> local;
      for (auto st : q.stmts) local.push_back(local_stmt[st]);
      groups[gi].edge_stmts.push_back(std::move(local));
      ends[gi].push_back({local_node[q.a], local_node[q.b]});
    }
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      Group& g = groups[gi];
      g.stmt_edges.assign(g.stmt.size(), {});
      for (std::size_t e = 0; e < g.edge_stmts.size(); ++e)
        for (int s : g.edge_stmts[e]) g.stmt_edges[s].push_back(static_cast<int>(e));
      build_arcs(g, ends[gi]);
    }
  }

  // 4. Solve: the heuristic everywhere (deterministic), then the ILP on the
  //    components it did not prove, smallest first, while time is left.
  // Work for the heuristic, in arcs scanned (about 5e7 a second here): a fifth
  // of the time limit, shared by size. A count, not the clock, so the plan
  // does not depend on the machine's speed or load.
  const double total_work = options.time_limit_s > 0 ? std::clamp(options.time_limit_s * 1e7, 2e6, 1e9) : 1e9;
  double total_size = 0;
  for (const Group& g : groups) total_size += static_cast<double>(g.arcs.size());
  for (Group& g : groups) {
    const double share = total_work * static_cast<double>(g.arcs.size()) / std::max(1.0, total_size);
    solve_heuristic(g, options.seed, static_cast<long long>(std::max(share, 2e5)), clock);
  }
#ifdef CYCLEFIX_HAVE_CBC
  if (options.exact) {
    std::vector<int> by_size(groups.size());
    std::iota(by_size.begin(), by_size.end(), 0);
    std::stable_sort(by_size.begin(), by_size.end(),
                     [&](int x, int y) { return groups[x].arcs.size() < groups[y].arcs.size(); });
    for (int gi : by_size) {
      if (groups[gi].optimal) continue;
      if (clock.passed()) break;
      solve_ilp(groups[gi], options.seed, clock);
    }
  }
#endif

  // 5. Assemble, and check the guarantee on the instance itself.
  std::vector<char> cut = forced;
  double lower = 0;
  bool optimal = true, any_ilp = false;
  for (const Group& g : groups) {
    for (std::size_t s = 0; s < g.stmt.size(); ++s)
      if (g.cut[s]) cut[g.stmt[s]] = 1;
    lower += g.lower_bound;
    optimal = optimal && g.optimal;
    any_ilp = any_ilp || g.used_ilp;
  }
  double cost = 0;
  for (std::size_t s = 0; s < stmt_count; ++s) {
    if (!cut[s]) continue;
    CUT_CHECK(in.statement_cuttable[s]);
    sol.cut_statements.push_back(static_cast<std::uint32_t>(s));
    cost += in.statement_cost[s];
    if (forced[s]) lower += in.statement_cost[s];
  }
  {
    std::vector<std::vector<int>> rest(n);
    std::vector<char> self(n, 0);
    for (std::size_t e = 0; e < edge_count; ++e) {
      if (removable[e] && std::all_of(stmts[e].begin(), stmts[e].end(), [&](auto s) { return bool(cut[s]); }))
        continue;
      rest[edges[e].from].push_back(static_cast<int>(edges[e].to));
      if (edges[e].from == edges[e].to) self[edges[e].from] = 1;
    }
    int rcount = 0;
    const std::vector<int> rcomp = strong_components(rest, &rcount);
    std::vector<int> rsize(rcount, 0), rfirst(rcount, -1);
    for (int v = 0; v < n; ++v) {
      ++rsize[rcomp[v]];
      if (rfirst[rcomp[v]] < 0) rfirst[rcomp[v]] = v;
    }
    for (int v = 0; v < n; ++v) {
      const bool rcyclic = rsize[rcomp[v]] > 1 || self[v];
      CUT_CHECK(rcyclic == bool(hcyclic[hcomp[v]]));
      if (rcyclic) CUT_CHECK(rfirst[rcomp[v]] == hmembers[hcomp[v]][0]);
    }
  }

  sol.cost = cost;
  sol.lower_bound = std::min(lower, cost);
  sol.optimal = optimal;
  if (optimal) sol.lower_bound = cost;
  sol.method = groups.empty() ? "trivial" : (optimal && any_ilp ? "ilp" : "heuristic");
  sol.seconds = clock.elapsed();
  return sol;
}

// ---------------------------------------------------------------------------
// Hitting given loops (solve_hitting).

namespace {

// A loop is hit when one of its edges is removed.
bool all_hit(const Group& g, const std::vector<std::vector<int>>& rows, const std::vector<char>& cut) {
  for (const auto& row : rows) {
    bool hit = false;
    for (int e : row) hit = hit || edge_removed(g, e, cut);
    if (!hit) return false;
  }
  return true;
}

// Greedy: repeatedly remove the edge with the lowest marginal cost per loop it
// newly hits (ties: lowest edge), then make the set minimal, most expensive
// statement first.
std::vector<char> hit_greedy(const Group& g, const std::vector<std::vector<int>>& rows) {
  const int edges = static_cast<int>(g.edge_stmts.size());
  std::vector<std::vector<int>> edge_rows(edges);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (int e : rows[r]) edge_rows[e].push_back(static_cast<int>(r));
  std::vector<char> cut(g.cost.size(), 0), hit(rows.size(), 0);
  std::vector<int> seen(rows.size(), -1), added;
  int stamp = 0;
  // Cuts e's statements and counts the loops that become hit (`undo`: takes the cut back).
  auto apply = [&](int e, bool undo) {
    added.clear();
    for (int s : g.edge_stmts[e])
      if (!cut[s]) cut[s] = 1, added.push_back(s);
    ++stamp;
    int count = 0;
    for (int s : added)
      for (int f : g.stmt_edges[s]) {
        if (!edge_removed(g, f, cut)) continue;
        for (int r : edge_rows[f]) {
          if (hit[r] || seen[r] == stamp) continue;
          seen[r] = stamp;
          ++count;
          if (!undo) hit[r] = 1;
        }
      }
    if (undo)
      for (int s : added) cut[s] = 0;
    return count;
  };
  while (true) {
    int best_edge = -1;
    double best = kInf;
    for (int e = 0; e < edges; ++e) {
      if (edge_rows[e].empty() || edge_removed(g, e, cut)) continue;
      const int count = apply(e, true);
      if (count == 0) continue;
      double marginal = 0;
      for (int s : g.edge_stmts[e])
        if (!cut[s]) marginal += g.cost[s];
      const double ratio = marginal / count;
      if (best_edge < 0 || ratio < best - tolerance(best)) best = ratio, best_edge = e;
    }
    if (best_edge < 0) break;
    apply(best_edge, false);
  }
  CUT_CHECK(all_hit(g, rows, cut));
  std::vector<int> order;
  for (std::size_t s = 0; s < cut.size(); ++s)
    if (cut[s]) order.push_back(static_cast<int>(s));
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return g.cost[x] > g.cost[y]; });
  for (int s : order) {
    cut[s] = 0;
    if (!all_hit(g, rows, cut)) cut[s] = 1;
  }
  return cut;
}

// The cycle packing of packing_bound over the given loops, shortest first.
double hitting_bound(const Group& g, const std::vector<std::vector<int>>& rows) {
  std::vector<double> residual = g.cost, inv(g.cost.size(), 0), edge_res(g.edge_stmts.size(), 0);
  double eps = 0;
  for (double c : g.cost) eps = std::max(eps, c);
  eps *= 1e-12;
  for (std::size_t e = 0; e < g.edge_stmts.size(); ++e)
    for (int s : g.edge_stmts[e]) edge_res[e] += residual[s];
  double bound = 0;
  for (const auto& row : rows) {
    bool open = true;
    for (int e : row) open = open && edge_res[e] > eps;
    if (open) bound += pack_cycle(g, row, residual, edge_res, inv);
  }
  return bound;
}

}  // namespace

CutSolution solve_hitting(const CutInstance& in, const std::vector<std::vector<std::uint32_t>>& loops,
                          const CutOptions& options) {
  const Deadline clock(options.time_limit_s);
  validate(in);
  CutSolution sol;

  // Local edges: the distinct statement sets of the removable edges on some
  // loop (two edges made by the same statements go together); local
  // statements: theirs, by id.
  std::map<std::vector<std::uint32_t>, int> edge_of;
  std::vector<std::vector<std::vector<std::uint32_t>>> loop_sets(loops.size());
  for (std::size_t l = 0; l < loops.size(); ++l) {
    for (auto e : loops[l]) {
      if (e >= in.edges.size())
        throw std::invalid_argument("hitting instance: loop " + std::to_string(l) + " names an unknown edge");
      std::vector<std::uint32_t> st = in.edges[e].statements;
      std::sort(st.begin(), st.end());
      st.erase(std::unique(st.begin(), st.end()), st.end());
      if (st.empty() || !std::all_of(st.begin(), st.end(), [&](auto s) { return bool(in.statement_cuttable[s]); }))
        continue;
      edge_of.emplace(st, 0);
      loop_sets[l].push_back(std::move(st));
    }
    if (loop_sets[l].empty())
      throw std::invalid_argument("hitting instance: loop " + std::to_string(l) + " has no removable edge");
  }
  Group g;
  std::vector<int> local_stmt(in.statement_cost.size(), -1);
  for (auto& [st, id] : edge_of)
    for (auto s : st) local_stmt[s] = 0;
  for (std::size_t s = 0; s < local_stmt.size(); ++s) {
    if (local_stmt[s] < 0) continue;
    local_stmt[s] = static_cast<int>(g.stmt.size());
    g.stmt.push_back(static_cast<std::uint32_t>(s));
    g.cost.push_back(in.statement_cost[s]);
  }
  for (auto& [st, id] : edge_of) {
    id = static_cast<int>(g.edge_stmts.size());
    std::vector<int> local;
    for (auto s : st) local.push_back(local_stmt[s]);
    g.edge_stmts.push_back(std::move(local));
  }
  g.stmt_edges.assign(g.stmt.size(), {});
  for (std::size_t e = 0; e < g.edge_stmts.size(); ++e)
    for (int s : g.edge_stmts[e]) g.stmt_edges[s].push_back(static_cast<int>(e));
  // Rows: each loop's local edges, without repeats, shortest first.
  std::set<std::vector<int>> distinct;
  for (const auto& sets : loop_sets) {
    std::vector<int> row;
    for (const auto& st : sets) row.push_back(edge_of.at(st));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    distinct.insert(std::move(row));
  }
  std::vector<std::vector<int>> rows(distinct.begin(), distinct.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.size() < y.size(); });

  // The greedy plan and the packing bound; then the ILP when they do not meet.
  g.cut = hit_greedy(g, rows);
  g.cost_value = cut_cost(g, g.cut);
  g.lower_bound = std::min(hitting_bound(g, rows), g.cost_value);
  g.optimal = g.cost_value <= g.lower_bound + tolerance(g.cost_value);
#ifdef CYCLEFIX_HAVE_CBC
  if (options.exact && !g.optimal) {
    CoverIlp ilp(g);
    for (const auto& row : rows) ilp.add_row(row);
    CoverIlp::Outcome out = ilp.solve(g.cut, options.seed, clock);
    g.used_ilp = out.status != CoverIlp::Status::NoTime;
    if (out.status == CoverIlp::Status::Optimal) {
      CUT_CHECK(all_hit(g, rows, out.cut));
      const double c = cut_cost(g, out.cut);
      if (c < g.cost_value + tolerance(g.cost_value)) {
        g.cut = std::move(out.cut);
        g.cost_value = c;
      }
      g.optimal = true;
      g.lower_bound = g.cost_value;
    } else if (out.status == CoverIlp::Status::Stopped) {
      g.lower_bound = std::min(std::max(g.lower_bound, out.bound), g.cost_value);
      g.optimal = g.cost_value <= g.lower_bound + tolerance(g.cost_value);
    }
  }
#endif

  for (std::size_t s = 0; s < g.stmt.size(); ++s) {
    if (!g.cut[s]) continue;
    CUT_CHECK(in.statement_cuttable[g.stmt[s]]);
    sol.cut_statements.push_back(g.stmt[s]);
  }
  sol.cost = g.cost_value;
  sol.optimal = g.optimal;
  sol.lower_bound = g.optimal ? g.cost_value : g.lower_bound;
  sol.method = rows.empty() ? "trivial" : (g.optimal && g.used_ilp ? "ilp" : "heuristic");
  sol.seconds = clock.elapsed();
  return sol;
}

}  // namespace cyclefix
