#include "simulator.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <set>
#include <unordered_map>

#include "parallel.hpp"
#include "reachability.hpp"

namespace cyclefix {

std::string_view to_string(EntryMode m) {
  switch (m) {
    case EntryMode::Normal: return "normal";
    case EntryMode::Bare: return "bare";
    case EntryMode::Lazy: return "lazy";
  }
  return "normal";
}

std::size_t SimulationResult::failing() const {
  std::size_t n = 0;
  for (const auto& e : entries) n += e.fails && e.circular;
  return n;
}

std::size_t SimulationResult::uncertain() const {
  std::size_t n = 0;
  for (const auto& e : entries) n += e.uncertain;
  return n;
}

namespace {

constexpr std::size_t kMaxCallDepth = 64;

struct Failure {
  std::string error;
  std::string message;
  std::vector<ChainHop> chain;
  bool circular = true;
  std::optional<ModuleId> partial;  // the partially initialised module (circular failures)
};
using MaybeFailure = std::optional<Failure>;

std::string_view last_component(std::string_view dotted) {
  auto d = dotted.rfind('.');
  return d == std::string_view::npos ? dotted : dotted.substr(d + 1);
}

// A dynamic import of a module that is not first-party (`__import__("numpy")`,
// `import_module("gmpy2")`): it runs no first-party code, so it cannot take part
// in a first-party cycle (an assumption: a third-party module that imports ours
// back is not modelled; simulate lists these).
bool is_leaf(const Analysis& a, const DynamicImport& d) {
  if (d.argument.empty() || d.argument.front() == '.') return false;
  return !a.modules.has_top_level(std::string_view(d.argument).substr(0, d.argument.find('.')));
}

// False for an event under an `if` the target interpreter does not take
// (`if sys.platform == "win32":` on Linux).
// An annotation evaluated when its definition runs, on 3.14+ (PEP 649), does not run either.
// With `bases` (the class statement a metaclass method runs for, or null),
// an event whose guard the model cannot decide is Unknown: it runs, as in a
// branch that may not be taken.
GuardValue runs_on_target(const FileAnalysis& fa, const Event& e, const GuardBases* bases,
                          bool* read_bases = nullptr) {
  if (e.annotation) {
    const SimulationTarget& t = simulation_target();
    if (t.major > 3 || (t.major == 3 && t.minor >= 14)) return GuardValue::False;
  }
  if (e.guard < 0 || static_cast<std::size_t>(e.guard) >= fa.facts.guards.size()) return GuardValue::True;
  return evaluate_guard(fa.facts.guards[e.guard], simulation_target(), bases, read_bases);
}
bool runs_on_target(const FileAnalysis& fa, const Event& e) {
  return runs_on_target(fa, e, nullptr) != GuardValue::False;
}

// The bases of a class statement, compared with the names a metaclass method
// tests them against (`if bases == (BaseModelForm,):`): equal when both sides
// name the same first-party classes, unknown when one side names something
// the model cannot resolve.
class ClassStatementBases final : public GuardBases {
 public:
  ClassStatementBases(const CalleeResolver& r, int class_file, const ClassInfo& c, int meta_file)
      : r_(r), class_file_(class_file), class_(c), meta_file_(meta_file) {}
  GuardValue equal(const std::vector<std::string_view>& names) const override {
    if (!class_.bases_complete) return GuardValue::Unknown;
    if (names.size() != class_.bases.size()) return GuardValue::False;
    GuardValue v = GuardValue::True;
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto want = r_.find_class(meta_file_, names[i]);
      auto have = r_.find_class(class_file_, class_.bases[i]);
      if (!want || !have) v = GuardValue::Unknown;
      else if (*want != *have) return GuardValue::False;
    }
    return v;
  }

 private:
  const CalleeResolver& r_;
  int class_file_;
  const ClassInfo& class_;
  int meta_file_;
};

// The class statement of `file` at `line` whose `metaclass=` is `callee`: the
// call event it makes after its body runs.
const ClassInfo* class_statement(const FileAnalysis& fa, int line, std::string_view callee) {
  const auto& cs = fa.facts.classes;
  auto it = std::lower_bound(cs.begin(), cs.end(), line, [](const ClassInfo& c, int l) { return c.line < l; });
  for (; it != cs.end() && it->line == line; ++it)
    if (it->metaclass == callee) return &*it;
  return nullptr;
}

// Whether importing m runs a body: not a namespace package, and its file was read and parsed.
bool has_body(const Analysis& a, ModuleId m) {
  const ModuleInfo& info = a.modules[m];
  return !info.is_namespace && info.file >= 0 && a.files[info.file].analysed;
}

// The module-name lookups every import needs (ancestors, parent, submodule by
// name), computed once per simulation so that the interpreter, which replays
// each module once per entry point, never builds or hashes a dotted name.
class ModuleLinks {
 public:
  explicit ModuleLinks(const ModuleIndex& modules) : parent_(modules.size()), first_ancestor_(modules.size() + 1) {
    for (ModuleId m = 0; m < modules.size(); ++m) {
      std::string_view name = modules[m].name;
      first_ancestor_[m] = ancestors_.size();
      for (std::size_t dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.', dot + 1))
        if (auto p = modules.find(name.substr(0, dot))) ancestors_.push_back(*p);
      if (auto d = name.rfind('.'); d != std::string_view::npos) {
        if (auto p = modules.find(name.substr(0, d))) {
          parent_[m] = *p;
          children_.emplace(Child{*p, name.substr(d + 1)}, m);
        }
      }
    }
    first_ancestor_[modules.size()] = ancestors_.size();
  }

  // The modules among m's dotted prefixes, outermost first: what `import m` runs before m.
  std::span<const ModuleId> ancestors(ModuleId m) const {
    return {ancestors_.data() + first_ancestor_[m], ancestors_.data() + first_ancestor_[m + 1]};
  }
  // The module named by m's name without its last component: where m's name is bound.
  std::optional<ModuleId> parent(ModuleId m) const { return parent_[m]; }
  // The module `m.component`.
  std::optional<ModuleId> child(ModuleId m, std::string_view component) const {
    auto it = children_.find(Child{m, component});
    if (it == children_.end()) return std::nullopt;
    return it->second;
  }

 private:
  struct Child {
    ModuleId parent;
    std::string_view component;  // a view into the module's name
    bool operator==(const Child&) const = default;
  };
  struct ChildHash {
    std::size_t operator()(const Child& c) const {
      return std::hash<std::string_view>{}(c.component) * 31 + c.parent;
    }
  };
  std::vector<std::optional<ModuleId>> parent_;
  std::vector<ModuleId> ancestors_;  // every module's list, back to back
  std::vector<std::size_t> first_ancestor_;
  std::unordered_map<Child, ModuleId, ChildHash> children_;
};

}  // namespace

// The modules a first-party import statement names, looked up once per
// tree rather than once per execution of the statement. (Outside the anonymous
// namespace, like the cache that holds it: SimulationTables names the cache.)
struct ImportModules {
  struct Alias {
    std::vector<ModuleId> path;      // `import a.b.c`: a, a.b, a.b.c, up to the first that is not a module
    std::optional<ModuleId> module;  // `import`: what the alias binds; `from x import n`: the submodule x.n
  };
  std::optional<ModuleId> from;  // `from x import ...`: x
  std::vector<Alias> aliases;
};

// Per-event facts of one tree: the bodies each call runs, what each use's
// first name is bound to, the modules each import statement names. They
// depend on the tree and its resolver only, not on the entry mode or on what
// is deferred, so every simulation of the tree reads one table. It is built
// whole, on all cores, before any simulation runs (read-only after that: the
// two modes of simulate_both read it at once without locks), in flat
// per-file arrays indexed by an event's position in its body. Built lazily
// into hash maps, one per mode, it held about 150 MB per mode on the
// 50,000-file benchmark tree and resolved every call twice.
class EventCache {
 public:
  EventCache(const Analysis& a, const CalleeResolver& resolver) : a_(a), resolver_(resolver), files_(a.files.size()) {
    parallel_for(files_.size(), 0, [] { return 0; }, [&](std::size_t f, int) { build(static_cast<int>(f)); });
  }

  const CalleeResolver& resolver() const { return resolver_; }

  // The bodies a Call event runs.
  std::span<const BodyRef> calls(int file, int function, const Event& e) const {
    const FileTable& t = files_[file];
    const std::size_t i = index(file, function, e);
    return {t.bodies.data() + t.call_begin[i], t.bodies.data() + t.call_begin[i + 1]};
  }

  // What the first component of a Use event is bound to by a module-level
  // first-party import, or null.
  const ImportBinding* use_binding(int file, int function, const Event& e) const {
    const FileTable& t = files_[file];
    const std::uint32_t b = t.use_binding[index(file, function, e)];
    return b == kNone ? nullptr : &t.bindings[b];
  }

  // The modules of import statement `import` of `file`.
  const ImportModules& import_modules(int file, int import) const { return files_[file].imports[import]; }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  struct FileTable {
    std::vector<std::uint32_t> body_first;  // per body (module, then each function): its first event's index
    std::vector<std::uint32_t> call_begin;  // per event, and one past the last: its range in `bodies`
    std::vector<BodyRef> bodies;
    std::vector<std::uint32_t> use_binding;  // per event: index in `bindings`, or kNone
    std::vector<ImportBinding> bindings;
    std::vector<ImportModules> imports;      // per import statement
  };

  std::size_t index(int file, int function, const Event& e) const {
    const ModuleFacts& f = a_.files[file].facts;
    const std::vector<Event>& body = function < 0 ? f.events : f.functions[function].events;
    return files_[file].body_first[function + 1] + static_cast<std::size_t>(&e - body.data());
  }

  void build(int file) {
    const FileAnalysis& fa = a_.files[file];
    FileTable& t = files_[file];
    if (!fa.analysed) {
      t.body_first.assign(fa.facts.functions.size() + 1, 0);
      t.call_begin.assign(1, 0);
      t.imports.resize(fa.facts.imports.size());
      return;
    }
    std::size_t total = fa.facts.events.size();
    for (const FunctionInfo& fn : fa.facts.functions) total += fn.events.size();
    t.body_first.reserve(fa.facts.functions.size() + 1);
    t.call_begin.reserve(total + 1);
    t.use_binding.reserve(total);
    auto add_body = [&](int function, const std::vector<Event>& events) {
      t.body_first.push_back(static_cast<std::uint32_t>(t.call_begin.size()));
      for (const Event& e : events) {
        t.call_begin.push_back(static_cast<std::uint32_t>(t.bodies.size()));
        std::uint32_t binding = kNone;
        if (e.kind == Event::Kind::Call) {
          for (BodyRef b : resolver_.resolve_call(file, function, e.name)) t.bodies.push_back(b);
        } else if (e.kind == Event::Kind::Use) {
          std::string_view head = std::string_view(e.name).substr(0, e.name.find('.'));
          if (auto b = resolver_.binding(file, head)) {
            binding = static_cast<std::uint32_t>(t.bindings.size());
            t.bindings.push_back(std::move(*b));
          }
        }
        t.use_binding.push_back(binding);
      }
    };
    add_body(-1, fa.facts.events);
    for (std::size_t i = 0; i < fa.facts.functions.size(); ++i)
      add_body(static_cast<int>(i), fa.facts.functions[i].events);
    t.call_begin.push_back(static_cast<std::uint32_t>(t.bodies.size()));
    t.bodies.shrink_to_fit();
    t.bindings.shrink_to_fit();
    t.imports.resize(fa.facts.imports.size());
    for (std::size_t i = 0; i < fa.facts.imports.size(); ++i)
      if (fa.resolved[i].first_party) fill_import(file, static_cast<int>(i), t.imports[i]);
  }

  void fill_import(int file, int import, ImportModules& out) const {
    const FileAnalysis& fa = a_.files[file];
    const ImportStatement& st = fa.facts.imports[import];
    const ResolvedImport& res = fa.resolved[import];
    if (st.is_from) {
      out.from = a_.modules.find(res.absolute_module);
      for (const ImportAlias& alias : st.names)
        out.aliases.push_back({{}, a_.modules.find(res.absolute_module + "." + alias.name)});
      return;
    }
    for (const ImportAlias& alias : st.names) {
      ImportModules::Alias& al = out.aliases.emplace_back();
      const std::string& full = alias.name;
      for (std::size_t dot = 0;;) {
        std::size_t next = full.find('.', dot);
        auto id = a_.modules.find(std::string_view(full).substr(0, next));
        if (!id) break;  // not ours, or missing: not a circular-import question
        al.path.push_back(*id);
        if (next == std::string::npos) break;
        dot = next + 1;
      }
      al.module = a_.modules.find(alias.asname.empty() ? full.substr(0, full.find('.')) : full);
    }
  }

  const Analysis& a_;
  const CalleeResolver& resolver_;
  std::vector<FileTable> files_;
};

SimulationTables::SimulationTables(const Analysis& a)
    : a_(a), resolver_(a.files, a.modules, CalleeResolver::Reach::Simulator) {}

const EventCache& SimulationTables::events() const {
  std::call_once(events_once_, [&] { events_ = std::make_unique<EventCache>(a_, resolver_); });
  return *events_;
}

SimulationTables::~SimulationTables() = default;

namespace {

// Whether an import event runs: first-party and not deferred by the planner.
bool runs_first_party(const FileAnalysis& fa, int file, const Event& e, const DeferredImports& deferred) {
  return e.kind == Event::Kind::Import && fa.resolved[e.import].first_party && !deferred.silenced(file, e.import);
}

// The modules an import-time body may run or read, and the function bodies it
// calls: one node per module body and one per function body. A module on no
// cycle of this graph is never partially initialised while its own body or a
// body it calls runs, so its reads (`from m import n`, `m.attr`) cannot fail
// however the entry reached it: only its imports can, through the modules they
// run. Reads count as edges too, so the graph over-approximates what the
// interpreter can do.
class ReadGraph {
 public:
  ReadGraph(const Analysis& a, const EventCache& events, const ModuleLinks& links, const DeferredImports& deferred)
      : a_(a), events_(events), links_(links), deferred_(deferred), first_body_(a.files.size() + 1) {
    std::size_t bodies = 0;
    for (std::size_t f = 0; f < a.files.size(); ++f) {
      first_body_[f] = bodies;
      if (a.files[f].analysed) bodies += a.files[f].facts.functions.size();
    }
    first_body_[a.files.size()] = bodies;
    edges_.resize(a.modules.size() + bodies);
    reached_.resize(bodies, false);
    for (ModuleId m = 0; m < a.modules.size(); ++m) {
      if (!has_body(a, m)) continue;
      const int file = a.modules[m].file;
      add_body(m, file, -1, a.files[file].facts.events);
    }
    // Only the bodies that import-time code can call: resolving every call in
    // every function would cost more than the simulation on a large library.
    while (!called_.empty()) {
      BodyRef b = called_.back();
      called_.pop_back();
      add_body(body_node(b.file, b.function), b.file, b.function, a.files[b.file].facts.functions[b.function].events);
    }
  }

  // The strongly connected components, in the order Tarjan's algorithm
  // completes them: every edge leaving a component leads to one completed
  // earlier, so this is a reverse topological order (sinks first).
  struct Components {
    std::vector<std::uint32_t> of;                    // per node
    std::vector<std::vector<std::uint32_t>> members;  // per component
    std::vector<bool> cyclic;                         // per component: several nodes, or a self-loop
  };
  Components components() const {
    const std::size_t n = edges_.size();
    Components out;
    out.of.assign(n, kUnvisited);
    // Tarjan's algorithm, iterative: the graph can be deep.
    std::vector<std::uint32_t> index(n, kUnvisited), low(n, 0);
    std::vector<bool> on_stack(n, false);
    std::vector<std::uint32_t> stack;
    std::vector<std::pair<std::uint32_t, std::size_t>> frames;  // node, next edge
    std::uint32_t next = 0;
    for (std::uint32_t root = 0; root < n; ++root) {
      if (index[root] != kUnvisited) continue;
      frames.push_back({root, 0});
      index[root] = low[root] = next++;
      stack.push_back(root);
      on_stack[root] = true;
      while (!frames.empty()) {
        auto& [v, i] = frames.back();
        if (i < edges_[v].size()) {
          std::uint32_t w = edges_[v][i++];
          if (index[w] == kUnvisited) {
            index[w] = low[w] = next++;
            stack.push_back(w);
            on_stack[w] = true;
            frames.push_back({w, 0});
          } else if (on_stack[w]) {
            low[v] = std::min(low[v], index[w]);
          }
          continue;
        }
        std::uint32_t done = v;
        frames.pop_back();
        if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
        if (low[done] != index[done]) continue;
        const auto c = std::uint32_t(out.members.size());
        auto& members = out.members.emplace_back();
        std::uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          out.of[w] = c;
          members.push_back(w);
        } while (w != done);
        const auto& self = edges_[done];
        out.cyclic.push_back(members.size() > 1 || std::binary_search(self.begin(), self.end(), done));
      }
    }
    return out;
  }

  // Per module: on no cycle (a self-loop counts).
  std::vector<bool> acyclic_modules(const Components& c) const {
    std::vector<bool> acyclic(a_.modules.size(), false);
    for (ModuleId m = 0; m < a_.modules.size(); ++m) acyclic[m] = !c.cyclic[c.of[m]];
    return acyclic;
  }

  const std::vector<std::uint32_t>& successors(std::uint32_t node) const { return edges_[node]; }
  std::size_t nodes() const { return edges_.size(); }
  // The module or function body a node stands for (function -1: a module body).
  BodyRef body_of(std::uint32_t node) const {
    if (node < a_.modules.size()) return {a_.modules[node].file, -1};
    std::size_t b = node - a_.modules.size();
    int file = int(std::upper_bound(first_body_.begin(), first_body_.end(), b) - first_body_.begin()) - 1;
    return {file, int(b - first_body_[file])};
  }

  // Whether a function body, or a body it calls, runs a first-party import.
  std::vector<bool> importing_bodies() const {
    const std::size_t modules = a_.modules.size();
    std::vector<std::vector<std::uint32_t>> callers(first_body_.back());
    std::vector<bool> importing(first_body_.back(), false);
    std::vector<std::uint32_t> todo;
    for (std::size_t f = 0; f < a_.files.size(); ++f) {
      if (!a_.files[f].analysed) continue;
      const auto& functions = a_.files[f].facts.functions;
      for (std::size_t i = 0; i < functions.size(); ++i) {
        std::uint32_t b = std::uint32_t(first_body_[f] + i);
        if (!reached_[b]) continue;
        for (std::uint32_t w : edges_[modules + b])
          if (w >= modules) callers[w - modules].push_back(b);
        for (const Event& e : functions[i].events)
          if (!importing[b] && runs_first_party(a_.files[f], int(f), e, deferred_)) {
            importing[b] = true;
            todo.push_back(b);
          }
      }
    }
    while (!todo.empty()) {
      std::uint32_t b = todo.back();
      todo.pop_back();
      for (std::uint32_t c : callers[b])
        if (!importing[c]) {
          importing[c] = true;
          todo.push_back(c);
        }
    }
    return importing;
  }

  std::size_t body_index(int file, int function) const { return first_body_[file] + function; }

 private:
  static constexpr std::uint32_t kUnvisited = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t body_node(int file, int function) const {
    return std::uint32_t(a_.modules.size() + body_index(file, function));
  }

  void add_module(std::vector<std::uint32_t>& out, ModuleId m) {
    for (ModuleId p : links_.ancestors(m)) out.push_back(p);  // `import m` runs these first
    out.push_back(m);
  }

  // `head.a.b` read from module `m`: m and the submodules m.a, m.a.b.
  void add_chain(std::vector<std::uint32_t>& out, ModuleId m, std::string_view dotted) {
    out.push_back(m);
    auto dot = dotted.find('.');
    while (dot != std::string_view::npos) {
      std::string_view rest = dotted.substr(dot + 1);
      auto next = rest.find('.');
      auto sub = links_.child(m, rest.substr(0, next));
      if (!sub) return;
      out.push_back(m = *sub);
      dot = next == std::string_view::npos ? next : dot + 1 + next;
    }
  }

  void add_body(std::uint32_t node, int file, int function, const std::vector<Event>& events) {
    const FileAnalysis& fa = a_.files[file];
    std::vector<std::uint32_t>& out = edges_[node];
    for (const Event& e : events) {
      switch (e.kind) {
        case Event::Kind::Import: {
          if (!runs_first_party(fa, file, e, deferred_)) break;
          const ImportModules& mods = events_.import_modules(file, e.import);
          if (mods.from) add_module(out, *mods.from);
          for (const auto& alias : mods.aliases) {
            for (ModuleId m : alias.path) add_module(out, m);
            if (alias.module) add_module(out, *alias.module);
          }
          break;
        }
        case Event::Kind::Use: {
          std::string_view head = std::string_view(e.name).substr(0, e.name.find('.'));
          if (!e.local) {
            if (const ImportBinding* b = events_.use_binding(file, function, e)) add_chain(out, b->module, e.name);
            break;
          }
          // Bound by an import in this body: any of them may be the one.
          for (const Event& i : events) {
            if (i.kind != Event::Kind::Import || !fa.resolved[i.import].first_party) continue;
            const ImportStatement& st = fa.facts.imports[i.import];
            const ImportModules& mods = events_.import_modules(file, i.import);
            for (std::size_t k = 0; k < st.names.size(); ++k) {
              if (st.names[k].bound_name(st.is_from) != head) continue;
              if (auto m = mods.aliases[k].module) add_chain(out, *m, e.name);
            }
          }
          break;
        }
        case Event::Kind::Call:
          for (BodyRef b : events_.calls(file, function, e)) {
            out.push_back(body_node(b.file, b.function));
            if (!reached_[body_index(b.file, b.function)]) {
              reached_[body_index(b.file, b.function)] = true;
              called_.push_back(b);
            }
          }
          break;
        case Event::Kind::Bind:
        case Event::Kind::Protocol:  // reachability's guess: never followed here
          break;
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

  const Analysis& a_;
  const EventCache& events_;
  const ModuleLinks& links_;
  const DeferredImports& deferred_;
  std::vector<std::size_t> first_body_;  // per file, its first body's index (bodies back to back)
  std::vector<std::vector<std::uint32_t>> edges_;  // modules first, then bodies
  std::vector<bool> reached_;      // per body: called by import-time code
  std::vector<BodyRef> called_;    // reached, edges not added yet
};

// How a module on no cycle of the ReadGraph runs: its reads cannot fail, so only
// the events that import (directly or through the bodies they call) are
// replayed, and the names the body binds are known before it runs.
struct PlainModule {
  struct Step {
    const Event* event;             // an import, or a call into bodies that import
    const ImportModules* modules;   // imports: what they name
    std::vector<bool> bound_by_from;  // `from x import ...`: per alias, whether x's body binds the name
  };
  std::vector<Step> steps;  // in body order
  const std::vector<std::string_view>* names = nullptr;  // sorted: what the body binds when it completes
};

// The modules that run as a PlainModule, each built on first use.
class PlainModules {
 public:
  PlainModules(const Analysis& a, const EventCache& events, const ModuleLinks& links, const DeferredImports& deferred)
      : a_(a),
        events_(events),
        deferred_(deferred),
        graph_(a, events, links, deferred),
        components_(graph_.components()),
        acyclic_(graph_.acyclic_modules(components_)),
        importing_(graph_.importing_bodies()),
        plain_(a.modules.size()),
        names_(a.modules.size()) {}

  const ReadGraph& graph() const { return graph_; }
  const ReadGraph::Components& components() const { return components_; }

  // Lazy imports (PEP 810) make a body's imports depend on its reads: every
  // body is then replayed whole.
  void disable() { disabled_ = true; }

  // nullptr when m runs its whole body.
  const PlainModule* of(ModuleId m) {
    if (disabled_ || !acyclic_[m]) return nullptr;
    auto& slot = plain_[m];
    if (!slot) slot = build(m);
    return slot->has_value() ? &**slot : nullptr;
  }

 private:
  std::optional<PlainModule> build(ModuleId m) {
    const int file = a_.modules[m].file;
    const FileAnalysis& fa = a_.files[file];
    PlainModule p;
    p.names = &names(m);
    for (const Event& e : fa.facts.events) {
      if (!runs_on_target(fa, e)) continue;
      // A branch the model cannot decide is replayed by run_body, which knows
      // a failure there is a guess.
      if (e.kind == Event::Kind::Protocol) continue;
      if (e.conditional && e.kind != Event::Kind::Bind) return std::nullopt;
      if (e.kind == Event::Kind::Call) {
        for (BodyRef b : events_.calls(file, -1, e))
          if (importing_[graph_.body_index(b.file, b.function)]) {
            p.steps.push_back({&e, nullptr, {}});
            break;
          }
        continue;
      }
      if (!runs_first_party(fa, file, e, deferred_)) continue;
      // A caught failure leaves some names unbound, and a star import binds
      // what the other module holds at that moment: both need the whole body.
      const ImportStatement& st = fa.facts.imports[e.import];
      if (e.guarded || st.star) return std::nullopt;
      auto& step = p.steps.emplace_back(PlainModule::Step{&e, &events_.import_modules(file, e.import), {}});
      if (step.modules->from && a_.modules[*step.modules->from].file >= 0) {
        const auto& x = names(*step.modules->from);
        for (const ImportAlias& alias : st.names)
          step.bound_by_from.push_back(std::binary_search(x.begin(), x.end(), std::string_view(alias.name)));
      }
    }
    return p;
  }

 public:
  // What m's body binds when it completes without a caught failure.
  const std::vector<std::string_view>& names(ModuleId m) {
    auto& slot = names_[m];
    if (slot) return *slot;
    const int file = a_.modules[m].file;
    const FileAnalysis& fa = a_.files[file];
    std::vector<std::string_view> out;
    for (const Event& e : fa.facts.events) {
      if (!runs_on_target(fa, e)) continue;
      if (e.kind == Event::Kind::Bind) out.push_back(e.name);
      if (e.kind != Event::Kind::Import || deferred_.is_moved(file, e.import)) continue;
      const ImportStatement& st = fa.facts.imports[e.import];
      if (fa.resolved[e.import].first_party && !deferred_.silenced(file, e.import)) {
        if (st.star) continue;  // not a PlainModule
        if (st.is_from && !events_.import_modules(file, e.import).from) continue;  // binds nothing
      }
      for (const auto& al : st.names) out.push_back(al.bound_view(st.is_from));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return *(slot = std::move(out));
  }

 private:
  const Analysis& a_;
  const EventCache& events_;
  const DeferredImports& deferred_;
  ReadGraph graph_;
  ReadGraph::Components components_;
  std::vector<bool> acyclic_;    // per module
  std::vector<bool> importing_;  // per function body
  std::vector<std::optional<std::optional<PlainModule>>> plain_;  // outer: built yet
  std::vector<std::optional<std::vector<std::string_view>>> names_;
  bool disabled_ = false;
};

// Call nesting under which a module may be skipped, and the nesting its
// import may add: together below kMaxCallDepth, so skipping never hides a call
// the depth limit would have cut (or the other way round).
constexpr std::size_t kSkipCallDepth = kMaxCallDepth / 2;
// Simulations of fewer entries than this run every body (classifying would cost more).
std::atomic<std::size_t> skip_threshold{32};

// The modules whose import the interpreter may skip: importing one cannot fail
// or make the entry uncertain, whatever the interpreter holds at that moment,
// so it is marked imported (with the names its body binds) without running
// its body. The modules its body would import are imported later, only if a
// read needs to know whether they are there (Interpreter::expand_skipped).
//
// A node of the read graph is settled when every node it leads to is settled,
// its own body has nothing the model cannot follow (an import-time dynamic
// import, a star import), and, for a component with a cycle, importing each of
// its modules first, with the modules below it settled and imported or not,
// completes without failure or uncertainty (tried once per module). Why that
// holds from any state: the modules below the component cannot fail; a module
// above it is never read by it (else it would be in the component); and a
// component entered again after an earlier entry left some of its modules
// imported runs a subset of the first run's reads, each of them against a
// module that is at least as complete.
//
// Bare entry adds stubs: the entry's ancestors are in sys.modules but never
// ran. A node's stub bits (`rows`, `row_of`) are the packages that, as stubs,
// could change what importing it does: a `from P import name` that is not a
// submodule (it fails on a stub), or P in a component with a cycle (whose runs
// were tried with P's body). An entry skips only modules whose bits miss its
// ancestors.
struct Settled {
  const ReadGraph::Components* components = nullptr;
  std::vector<bool> node;            // per read-graph node
  std::vector<std::uint32_t> depth;  // per component: call nesting its import may add
  // Bare entry only.
  std::vector<std::int32_t> package_bit;  // per module: its bit, or -1 (not a package)
  std::size_t words = 0;                  // per row of bits
  std::vector<std::uint64_t> rows;        // rows of `words` words; row 0 is all zero
  std::vector<std::uint32_t> row_of;      // per component (most share a row, or have none)

  const std::uint64_t* bits(ModuleId m) const { return rows.data() + row_of[components->of[m]] * words; }
};

// What the interpreters of one simulation share.
struct SimulationContext {
  const Analysis& a;
  EntryMode mode;
  const DeferredImports& deferred;
  const ModuleLinks& links;
  const EventCache& events;
  PlainModules& plain;
  const Settled* settled = nullptr;  // none: every import runs its body
};

// A fresh interpreter importing modules. The simulator replays many entries
// from one state (the fresh one, or the one after `import pkg` for every module
// under pkg): checkpoint() before an entry, rollback() after it.
class Interpreter {
 public:
  explicit Interpreter(SimulationContext& cx) : cx_(&cx), a_(&cx.a), sys_modules_(cx.a.modules.size()) {}

  const EntryPrediction& prediction() const { return out_; }
  bool failed() const { return out_.fails; }
  bool imported(ModuleId m) const {
    const ModuleState* st = sys_modules_.get(m);
    return st && !st->loading;
  }

  void checkpoint() {
    saved_.push_back({out_, skipped_.size(), expanded_});
    sys_modules_.checkpoint();
  }
  void rollback() {
    ++generation_;  // bodies that ran clean did so in the state rolled back
    Saved& s = saved_.back();
    out_ = std::move(s.out);
    skipped_.resize(s.skipped);
    expanded_ = s.expanded;
    saved_.pop_back();
    sys_modules_.rollback();
  }

  // Settled-module tests (classify()): import m with its ancestors outside
  // `component` already imported, as they are when the component is entered at m.
  void enter(ModuleId m, std::uint32_t component) {
    max_active_ = 0;
    for (ModuleId p : cx_->links.ancestors(m))
      if (cx_->settled->components->of[p] != component && !sys_modules_.has(p)) mark_imported(p);
    import(m);
  }
  std::size_t max_call_depth() const { return max_active_; }
  // Module imports skipped so far, over every entry (rolled back or not).
  std::size_t skipped_total() const { return skipped_total_; }

  // `import m` in this interpreter (parents first, each only if not yet imported).
  void import(ModuleId m) {
    MaybeFailure f = import_module(m);
    if (f) {
      out_.fails = true;
      out_.circular = f->circular;
      out_.error = f->error;
      out_.message = f->message;
      out_.chain = std::move(f->chain);
      out_.partial = f->partial;
      if (out_.circular && out_.uncertain && out_.circular_branches == out_.unknowns.size()) out_.uncertain = false;
    }
  }

  void run(ModuleId entry, EntryMode mode) {
    ++generation_;
    stub_bits_.clear();
    if (mode == EntryMode::Bare) {
      // The entry's ancestors are in sys.modules, but their bodies never ran.
      for (ModuleId p : cx_->links.ancestors(entry)) {
        ModuleState& st = sys_modules_.at(p);
        st.loading = false;
        st.bare = true;
        bind_in_parent(p);
        if (const Settled* s = cx_->settled; s && s->words)
          if (std::int32_t bit = s->package_bit[p]; bit >= 0)
            stub_bits_.push_back({std::size_t(bit) / 64, std::uint64_t(1) << (bit % 64)});
      }
    }
    import(entry);
  }

 private:
  // Names bound in a module: sorted vectors of views into the facts and module
  // names, cheap to save when a checkpoint journals the module. A PlainModule's
  // own names are shared, not copied per entry; `names_` holds the others.
  class NameSet {
   public:
    void set_base(const std::vector<std::string_view>* base) { base_ = base; }
    void insert(std::string_view n) {
      if (base_ && std::binary_search(base_->begin(), base_->end(), n)) return;
      auto it = std::lower_bound(names_.begin(), names_.end(), n);
      if (it == names_.end() || *it != n) names_.insert(it, n);
    }
    bool count(std::string_view n) const {
      return (base_ && std::binary_search(base_->begin(), base_->end(), n)) || count_own(n);
    }
    // For a name known to be in the base, when there is one.
    bool count(std::string_view n, bool in_base) const { return (base_ && in_base) || count_own(n); }
    template <class F>
    void for_each(F f) const {
      if (base_)
        for (std::string_view n : *base_) f(n);
      for (std::string_view n : names_) f(n);
    }

   private:
    bool count_own(std::string_view n) const { return std::binary_search(names_.begin(), names_.end(), n); }

    const std::vector<std::string_view>* base_ = nullptr;
    std::vector<std::string_view> names_;
  };

  // A name bound to a lazy import's proxy (PEP 810) that nothing has read yet:
  // alias `alias` of import statement `import` of the module's file.
  struct LazyName {
    std::string_view name;
    int import = -1;
    std::size_t alias = 0;
  };

  struct ModuleState {
    bool present = false;  // in sys.modules
    bool loading = true;
    bool bare = false;  // a stub package whose body never ran (bare entry)
    NameSet bound;
    std::vector<LazyName> lazy;  // proxies not reified yet
  };

  // sys.modules, indexed by module id. While a checkpoint is open, the first
  // change to a module saves its state, so rollback() costs what the entry
  // touched rather than a copy of the whole table per entry.
  class ModuleTable {
   public:
    explicit ModuleTable(std::size_t n) : states_(n), saved_in_(n, 0) {}
    const ModuleState* get(ModuleId m) const { return states_[m].present ? &states_[m] : nullptr; }
    ModuleState* get_mutable(ModuleId m) { return states_[m].present ? &write(m) : nullptr; }
    bool has(ModuleId m) const { return states_[m].present; }
    ModuleState& at(ModuleId m) {
      ModuleState& st = write(m);
      st.present = true;
      return st;
    }
    void erase(ModuleId m) { write(m) = ModuleState{}; }

    void checkpoint() {
      marks_.push_back({journal_.size(), segment_});
      segment_ = ++segments_;
    }
    void rollback() {
      auto [size, segment] = marks_.back();
      // Newest first: a module saved twice (in an inner checkpoint, then again
      // after it was rolled back) ends with its oldest saved state.
      for (; journal_.size() > size; journal_.pop_back())
        states_[journal_.back().first] = std::move(journal_.back().second);
      marks_.pop_back();
      segment_ = segment;
    }

   private:
    ModuleState& write(ModuleId m) {
      if (!marks_.empty() && saved_in_[m] != segment_) {
        journal_.emplace_back(m, states_[m]);
        saved_in_[m] = segment_;
      }
      return states_[m];
    }

    std::vector<ModuleState> states_;
    std::vector<std::pair<ModuleId, ModuleState>> journal_;
    std::vector<std::uint64_t> saved_in_;  // the checkpoint segment that last saved each module
    std::vector<std::pair<std::size_t, std::uint64_t>> marks_;  // journal size and segment at each open checkpoint
    std::uint64_t segment_ = 0;
    std::uint64_t segments_ = 0;
  };

  SimulationContext* cx_;
  const Analysis* a_;
  EntryPrediction out_;
  ModuleTable sys_modules_;
  struct Saved {
    EntryPrediction out;
    std::size_t skipped, expanded;
  };
  std::vector<Saved> saved_;  // at each open checkpoint
  // Settled modules imported without running their bodies, in order; those
  // from expanded_ on have not had their bodies' imports run yet.
  std::vector<ModuleId> skipped_;
  std::size_t expanded_ = 0;
  bool expanding_ = false;
  std::vector<std::pair<std::size_t, std::uint64_t>> stub_bits_;  // bare entry: the stubs' (word, mask)
  std::size_t max_active_ = 0;
  std::size_t skipped_total_ = 0;
  // The chain so far, copied into the prediction only when an entry fails.
  std::vector<ChainHop> stack_;
  std::vector<std::pair<int, int>> active_;  // bodies being run, innermost last (recursion guard)
  std::vector<std::vector<std::uint32_t>> clean_;  // [file][function]: generation_ it ran clean in
  std::uint32_t generation_ = 1;
  std::size_t cut_calls_ = 0;  // calls not made: depth limit or recursion guard
  // The class statement the next run_body runs a metaclass method for, and
  // how many guards have been decided on such bases.
  const GuardBases* next_bases_ = nullptr;
  std::size_t bases_reads_ = 0;

  void unknown(std::string why) {
    out_.uncertain = true;
    if (std::find(out_.unknowns.begin(), out_.unknowns.end(), why) == out_.unknowns.end())
      out_.unknowns.push_back(std::move(why));
  }

  std::string where(int file, int line) const {
    return a_->files[file].source.display + ":" + std::to_string(line);
  }

  std::vector<ChainHop> chain() const { return stack_; }

  // A circular-import failure about the partially initialised module `partial`.
  Failure fail(std::string error, std::string message, ModuleId partial) const {
    return Failure{std::move(error), std::move(message), chain(), true, partial};
  }
  Failure fail_not_circular(std::string error, std::string message) const {
    return Failure{std::move(error), std::move(message), chain(), false, std::nullopt};
  }

  void bind_in_parent(ModuleId m) {
    auto p = cx_->links.parent(m);
    if (!p) return;
    if (ModuleState* st = sys_modules_.get_mutable(*p)) {
      std::string_view name = last_component(a_->modules[m].name);
      st->bound.insert(name);
      forget_lazy(*st, name);  // the import system's setattr replaces a proxy
    }
  }

  MaybeFailure import_module(ModuleId m) {
    if (sys_modules_.has(m)) return std::nullopt;
    // Parents first, each only if not already in sys.modules.
    for (ModuleId p : cx_->links.ancestors(m)) {
      if (!sys_modules_.has(p)) {
        if (MaybeFailure f = exec_module(p)) return f;
      }
    }
    if (sys_modules_.has(m)) return std::nullopt;  // a parent's body imported it
    return exec_module(m);
  }

  // Whether importing m may skip its body (see Settled).
  bool may_skip(ModuleId m) const {
    const Settled* s = cx_->settled;
    if (!s || expanding_ || active_.size() >= kSkipCallDepth || !s->node[m]) return false;
    if (!stub_bits_.empty()) {
      const std::uint64_t* bits = s->bits(m);
      for (auto [word, mask] : stub_bits_)
        if (bits[word] & mask) return false;
    }
    return true;
  }

  // m imported and complete, its body not run.
  void mark_imported(ModuleId m) {
    ModuleState& st = sys_modules_.at(m);
    st.loading = false;
    if (has_body(*a_, m)) st.bound.set_base(&cx_->plain.names(m));
    bind_in_parent(m);
  }

  // Runs the imports of the skipped modules' bodies, so that sys.modules holds
  // what it would hold had they run. Settled bodies cannot fail; nothing the
  // entry's own frames hold changes what they import, so they run outside them.
  // A read inside those bodies cannot fail either, so it never asks for
  // another replay (which would start over at the body being replayed).
  void expand_skipped() {
    if (expanding_ || expanded_ == skipped_.size()) return;
    expanding_ = true;
    std::vector<std::pair<int, int>> active;
    active.swap(active_);
    for (; expanded_ < skipped_.size(); ++expanded_) run_module_body(skipped_[expanded_]);
    active_.swap(active);
    expanding_ = false;
  }

  // Whether reading `head.rest` (head: the module the first name is bound to)
  // could see a module that only the skipped bodies import.
  bool may_see_skipped(ModuleId head, std::string_view rest) const {
    auto unseen = [&](ModuleId m) { return cx_->settled->node[m] && !sys_modules_.has(m); };
    if (unseen(head)) return true;
    for (ModuleId cur = head; !rest.empty();) {
      auto d = rest.find('.');
      auto sub = cx_->links.child(cur, rest.substr(0, d));
      if (!sub) return false;
      if (unseen(*sub)) return true;
      cur = *sub;
      rest = d == std::string_view::npos ? "" : rest.substr(d + 1);
    }
    return false;
  }

  // m's body (only its imports and calls when it is a PlainModule), with its hop on the chain.
  MaybeFailure run_module_body(ModuleId m) {
    const ModuleInfo& info = a_->modules[m];
    stack_.push_back({m, 0});
    const PlainModule* plain = cx_->plain.of(m);
    MaybeFailure f = plain ? run_plain(m, *plain) : run_body(info.file, -1, a_->files[info.file].facts.events);
    stack_.pop_back();
    return f;
  }

  MaybeFailure exec_module(ModuleId m) {
    if (!has_body(*a_, m)) {  // nothing runs: a namespace package, or a file not analysed
      mark_imported(m);
      return std::nullopt;
    }
    if (may_skip(m)) {
      const Settled& s = *cx_->settled;
      max_active_ = std::max(max_active_, active_.size() + s.depth[s.components->of[m]]);
      mark_imported(m);
      skipped_.push_back(m);
      ++skipped_total_;
      return std::nullopt;
    }
    const int file = a_->modules[m].file;
    sys_modules_.at(m).loading = true;
    for (const DynamicImport& d : a_->files[file].facts.dynamic_imports) {
      if (d.at_import_time && !is_leaf(*a_, d))
        unknown("dynamic import " + d.call + "(" + (d.argument.empty() ? "..." : "'" + d.argument + "'") +
                ") at import time at " + where(file, d.line) + ": not followed");
    }
    MaybeFailure f = run_module_body(m);
    if (f) {
      sys_modules_.erase(m);  // a failed import leaves no module behind
      return f;
    }
    sys_modules_.at(m).loading = false;
    bind_in_parent(m);
    return std::nullopt;
  }

  using Locals = std::unordered_map<std::string, ImportBinding>;

  // A PlainModule's body: the same imports and calls as run_body, in the same
  // order, without the reads that cannot fail and with the names bound up front
  // (nothing reads them before the body completes).
  MaybeFailure run_plain(ModuleId m, const PlainModule& p) {
    const int file = a_->modules[m].file;
    sys_modules_.at(m).bound.set_base(p.names);
    for (const PlainModule::Step& s : p.steps) {
      stack_.back().line = s.event->line;
      MaybeFailure f = s.modules ? plain_import(file, s) : do_call(file, -1, *s.event);
      if (f) return f;
    }
    return std::nullopt;
  }

  // do_import without the bindings: what a PlainModule's import runs.
  MaybeFailure plain_import(int file, const PlainModule::Step& s) {
    const ImportModules& mods = *s.modules;
    if (!mods.from) {
      for (const auto& alias : mods.aliases)
        for (ModuleId id : alias.path)
          if (MaybeFailure f = import_module(id)) return f;
      return std::nullopt;
    }
    ModuleId x = *mods.from;
    if (MaybeFailure f = import_module(x)) return f;
    const ImportStatement& st = a_->files[file].facts.imports[s.event->import];
    if (MaybeFailure f = import_fromlist_submodules(st, mods, x, &s.bound_by_from)) return f;
    for (std::size_t i = 0; i < st.names.size(); ++i) {
      const ModuleState* state = sys_modules_.get(x);
      if (!state) break;
      auto sub = mods.aliases[i].module;
      if (sub && sys_modules_.has(*sub)) continue;  // bound or not, nothing would run
      // Only a module that ran as a PlainModule has a base: x's own names.
      bool in_base = i < s.bound_by_from.size() && s.bound_by_from[i];
      if (!state->bound.count(st.names[i].name, in_base))
        if (MaybeFailure f = import_missing(file, s.event->import, i, x, sub, *state)) return f;
    }
    return std::nullopt;
  }

  MaybeFailure run_body(int file, int function, const std::vector<Event>& events) {
    const FileAnalysis& fa = a_->files[file];
    // The class statement this body (a metaclass's __new__/__init__) runs for.
    const GuardBases* bases = std::exchange(next_bases_, nullptr);
    Locals locals;  // names bound by imports inside this function call
    // A body of another module's function gets its own hop in the chain.
    bool pushed = !stack_.empty() && stack_.back().module != fa.module;
    if (pushed) stack_.push_back({fa.module, 0});
    MaybeFailure result;
    int resume_after = 0;  // a caught failure skips the rest of its try body
    // Imports moved down the module (DeferredImports::below), waiting for their line.
    std::vector<std::pair<int, const Event*>> pending;
    auto run_pending = [&](int before_line) -> MaybeFailure {
      while (!pending.empty() && pending.front().first < before_line) {
        const Event* moved = pending.front().second;
        pending.erase(pending.begin());
        if (!stack_.empty()) stack_.back().line = moved->line;
        if (MaybeFailure f = do_import(file, function, *moved, locals)) return f;
      }
      return std::nullopt;
    };
    for (const Event& e : events) {
      if (e.kind == Event::Kind::Protocol) continue;  // reachability's guess
      if (!pending.empty())
        if (MaybeFailure f = run_pending(e.line)) {
          result = std::move(f);
          break;
        }
      bool read_bases = false;
      const GuardValue runs = runs_on_target(fa, e, bases, &read_bases);
      bases_reads_ += read_bases;
      if (runs == GuardValue::False) continue;
      // A branch the model cannot decide (an undecided guard is one).
      const bool conditional = e.conditional || runs == GuardValue::Unknown;
      if (resume_after) {
        if (e.line <= resume_after) continue;
        resume_after = 0;
      }
      if (!stack_.empty()) stack_.back().line = e.line;
      MaybeFailure f;
      switch (e.kind) {
        case Event::Kind::Import:
          if (cx_->deferred.is_moved(file, e.import)) break;  // moved out of import time
          if (int below = function < 0 ? cx_->deferred.below_line(file, e.import) : 0) {
            auto at = std::find_if(pending.begin(), pending.end(), [&](const auto& p) { return p.first > below; });
            pending.insert(at, {below, &e});
            break;
          }
          f = do_import(file, function, e, locals);
          break;
        case Event::Kind::Bind:
          if (function < 0) {
            ModuleState& st = sys_modules_.at(fa.module);
            st.bound.insert(e.name);
            forget_lazy(st, e.name);
          }
          break;
        case Event::Kind::Use:
          if (!e.local) f = reify_global(fa.module, e.name);
          if (!f) f = check_use(file, function, e, e.local ? &locals : nullptr);
          break;
        case Event::Kind::Call:
          f = reify_global(fa.module, e.name);
          if (!f) f = do_call(file, function, e);
          break;
        case Event::Kind::Protocol: break;  // skipped above
      }
      if (f && e.try_end > 0 &&
          (e.catches & (f->error == "ImportError" ? Event::kCatchesImportError : Event::kCatchesAttributeError))) {
        // `try: ... except ImportError:` (or Exception, bare, ...) catches it: the
        // handler runs (its events follow the body's) and the import goes on.
        f.reset();
        resume_after = e.try_end;
        continue;
      }
      if (f && conditional) {
        // A branch inside a function that runs at import time: it may not be taken.
        const std::size_t before = out_.unknowns.size();
        unknown("a circular import in a conditional branch of " +
                (function >= 0 ? fa.facts.functions[function].qualified_name + "()" : a_->modules[fa.module].name) +
                " at " + where(file, e.line) + " (" + f->message + ")");
        if (f->circular && out_.unknowns.size() > before) ++out_.circular_branches;
        f.reset();
      }
      if (f) {
        result = std::move(f);
        break;
      }
    }
    if (!result && !pending.empty()) result = run_pending(std::numeric_limits<int>::max());
    if (pushed) stack_.pop_back();
    return result;
  }

  // A body that ran to its end without failing, with no call cut short by the
  // depth limit or the recursion guard, cannot fail when it runs again in the
  // same entry: modules only get more complete and names only get bound (the
  // argument of settled modules), and the uncertainty it found is already
  // recorded. It is not run again. Without this, every class statement ran its
  // metaclass's whole call tree again (SymPy's simulation took 5x as long).
  bool ran_clean(BodyRef b) const {
    return b.file < static_cast<int>(clean_.size()) && b.function < static_cast<int>(clean_[b.file].size()) &&
           clean_[b.file][b.function] == generation_;
  }
  void mark_clean(BodyRef b) {
    if (clean_.size() <= static_cast<std::size_t>(b.file)) clean_.resize(a_->files.size());
    auto& v = clean_[b.file];
    if (v.empty()) v.assign(a_->files[b.file].facts.functions.size(), 0);
    v[b.function] = generation_;
  }

  MaybeFailure do_call(int file, int function, const Event& e) {
    if (active_.size() >= kMaxCallDepth) {
      ++cut_calls_;
      return std::nullopt;
    }
    // A class statement's `metaclass=` call: its __new__/__init__ can decide
    // their tests of the bases.
    const ClassInfo* made = e.kind == Event::Kind::Call ? class_statement(a_->files[file], e.line, e.name) : nullptr;
    for (BodyRef b : cx_->events.calls(file, function, e)) {
      if (ran_clean(b)) continue;
      auto key = std::make_pair(b.file, b.function);
      if (std::find(active_.begin(), active_.end(), key) != active_.end()) {
        ++cut_calls_;
        continue;
      }
      active_.push_back(key);
      max_active_ = std::max(max_active_, active_.size());
      const std::size_t cut_before = cut_calls_, reads_before = bases_reads_;
      const FunctionInfo& fn = a_->files[b.file].facts.functions[b.function];
      std::optional<ClassStatementBases> bases;
      if (made && (fn.name() == "__new__" || fn.name() == "__init__"))
        next_bases_ = &bases.emplace(cx_->events.resolver(), file, *made, b.file);
      MaybeFailure f = run_body(b.file, b.function, fn.events);
      next_bases_ = nullptr;
      active_.pop_back();
      if (f) return f;
      // A body that read the bases of the class being made may do otherwise
      // for the next class statement.
      if (cut_calls_ == cut_before && bases_reads_ == reads_before) mark_clean(b);
    }
    return std::nullopt;
  }

  void bind_here(int file, int function, std::string_view name) {
    if (function < 0) sys_modules_.at(a_->files[file].module).bound.insert(name);
  }

  // `attr`: an import alias's name, in the facts (ImportBinding::name is a view).
  void bind_local(Locals& locals, const std::string& name, ModuleId module, std::string_view attr = {}) {
    locals[name] = ImportBinding{module, attr};
  }

  MaybeFailure do_import(int file, int function, const Event& e, Locals& locals) {
    const FileAnalysis& fa = a_->files[file];
    const ImportStatement& st = fa.facts.imports[e.import];
    const ResolvedImport& res = fa.resolved[e.import];
    if (!res.first_party || cx_->deferred.silenced(file, e.import)) {  // rebound: imports from outside the loop
      for (const auto& al : st.names) bind_here(file, function, al.bound_view(st.is_from));
      return std::nullopt;
    }
    const ImportModules& mods = cx_->events.import_modules(file, e.import);
    if (function < 0 && binds_lazily(st, cx_->deferred.is_lazified(file, e.import))) {
      // PEP 810: the names are bound to proxies; nothing is imported until one is read.
      ModuleState& here = sys_modules_.at(fa.module);
      for (std::size_t i = 0; i < st.names.size(); ++i) {
        std::string_view name = st.names[i].bound_view(st.is_from);
        here.bound.insert(name);
        forget_lazy(here, name);
        here.lazy.push_back({name, e.import, i});
      }
      return std::nullopt;
    }
    if (!st.is_from) {
      for (std::size_t i = 0; i < st.names.size(); ++i) {
        const ImportAlias& alias = st.names[i];
        for (ModuleId id : mods.aliases[i].path)
          if (MaybeFailure f = import_module(id)) return f;
        bind_here(file, function, alias.bound_view(false));
        if (auto id = mods.aliases[i].module) bind_local(locals, alias.bound_name(false), *id);
      }
      return std::nullopt;
    }
    auto x = mods.from;
    if (!x) return std::nullopt;
    if (MaybeFailure f = import_module(*x)) return f;
    if (cx_->deferred.is_late(file, e.import)) {
      // Late-bound (`from . import b`): the module object is bound whatever
      // state it is in; its names are read where they are used, later.
      for (const auto& al : st.names) bind_here(file, function, al.bound_view(st.is_from));
      return std::nullopt;
    }
    const ModuleState* state = sys_modules_.get(*x);
    if (!state) return std::nullopt;
    if (st.star) {
      if (expanded_ < skipped_.size()) {
        expand_skipped();  // the names a star import binds include submodules the skipped bodies import
        state = sys_modules_.get(*x);
      }
      if (state->loading)
        unknown("star import from partially initialized module '" + res.absolute_module + "' at " +
                where(file, e.line));
      const auto& facts_x = a_->modules[*x].file >= 0 ? &a_->files[a_->modules[*x].file].facts : nullptr;
      state->bound.for_each([&](std::string_view n) {
        bool exported = facts_x && facts_x->dunder_all
                            ? std::count(facts_x->dunder_all->begin(), facts_x->dunder_all->end(), n) > 0
                            : n.rfind('_', 0) != 0;
        if (exported) bind_here(file, function, n);
      });
      return std::nullopt;
    }
    if (MaybeFailure f = import_fromlist_submodules(st, mods, *x)) return f;
    const std::vector<std::string>* moved = cx_->deferred.split_names(file, e.import);
    for (std::size_t i = 0; i < st.names.size(); ++i) {
      const ImportAlias& alias = st.names[i];
      if (moved && std::count(moved->begin(), moved->end(), alias.bound_name(true))) continue;  // imported where used
      auto sub = mods.aliases[i].module;
      if (MaybeFailure f = reify_global(*x, alias.name)) return f;  // reading a proxy reifies it
      state = sys_modules_.get(*x);
      if (!state) break;
      if (!state->bound.count(alias.name))
        if (MaybeFailure f = import_missing(file, e.import, i, *x, sub, *state)) return f;
      bind_here(file, function, alias.bound_view(true));
      if (sub)
        bind_local(locals, alias.bound_name(true), *sub);
      else
        bind_local(locals, alias.bound_name(true), *x, alias.name);
    }
    return std::nullopt;
  }

  // CPython's _handle_fromlist: before any name of `from pkg import a, b` is
  // read, every name pkg lacks that is a submodule is imported, in order. So
  // `from stub import count_digits, digits` runs pkg.digits even though
  // reading count_digits then fails. `in_base` (PlainModule steps only): which
  // names the module's own body binds.
  MaybeFailure import_fromlist_submodules(const ImportStatement& st, const ImportModules& mods, ModuleId x,
                                          const std::vector<bool>* in_base = nullptr) {
    for (std::size_t i = 0; i < st.names.size(); ++i) {
      auto sub = mods.aliases[i].module;
      if (!sub || sys_modules_.has(*sub)) continue;
      const ModuleState* state = sys_modules_.get(x);
      if (!state) return std::nullopt;
      const std::string& name = st.names[i].name;
      if (in_base ? state->bound.count(name, i < in_base->size() && (*in_base)[i]) : state->bound.count(name)) continue;
      if (MaybeFailure f = import_module(*sub)) return f;
    }
    return std::nullopt;
  }

  // `from x import name` (alias `i` of import `import`) where x has not bound
  // the name: the submodule x.name, else a failure if x is partial or a stub.
  // What a partially initialised module already has before its body binds
  // anything: the dunders the import system sets (design.md §3), and any name
  // once a module-level `__getattr__` (PEP 562) is bound: CPython asks it.
  static bool exists_while_loading(const ModuleState& state, std::string_view name) {
    static constexpr std::string_view kDunders[] = {"__name__",    "__file__",    "__path__",   "__spec__",
                                                    "__loader__",  "__package__", "__doc__",    "__cached__",
                                                    "__builtins__", "__dict__"};
    if (name.starts_with("__") && std::find(std::begin(kDunders), std::end(kDunders), name) != std::end(kDunders))
      return true;
    return state.bound.count("__getattr__");
  }

  MaybeFailure import_missing(int file, int import, std::size_t i, ModuleId x, std::optional<ModuleId> sub,
                              const ModuleState& state) {
    if (sub) return import_module(*sub);
    const std::string& name = a_->files[file].facts.imports[import].names[i].name;
    const std::string& absolute = a_->files[file].resolved[import].absolute_module;
    const std::string& file_x = a_->modules[x].display;
    const std::string in_file = file_x.empty() ? "" : " (" + file_x + ")";
    if (state.loading && !exists_while_loading(state, name))
      return fail("ImportError",
                  "cannot import name '" + name + "' from partially initialized module '" + absolute +
                      "' (most likely due to a circular import)" + in_file,
                  x);
    if (state.bare) {
      // A stub package (bare entry): nothing was ever bound in it.
      return fail_not_circular("ImportError", "cannot import name '" + name + "' from '" + absolute + "'" + in_file);
    }
    // Otherwise the module finished without binding the name as far as we can
    // see (dynamic bindings); not a circular-import question.
    return std::nullopt;
  }

  // PEP 810. Whether module-level statement `st` binds lazily: written `lazy`
  // (or named in __lazy_modules__), or, in lazy entry (`-X lazy_imports=all`),
  // any module-level import outside a try, a class body and a star import.
  // `lazified`: a cut the plan makes by writing `lazy` in front of it.
  bool binds_lazily(const ImportStatement& st, bool lazified) const {
    if (st.is_lazy || lazified) return true;
    if (cx_->mode != EntryMode::Lazy || st.star) return false;
    switch (st.context) {
      case ImportContext::ModuleLevel:
      case ImportContext::ConditionalIf:
      case ImportContext::TypeCheckingElse:
      case ImportContext::MainGuard: return true;
      default: return false;
    }
  }

  static void forget_lazy(ModuleState& st, std::string_view name) {
    if (st.lazy.empty()) return;
    std::erase_if(st.lazy, [&](const LazyName& l) { return l.name == name; });
  }

  // Reading global `name` (or the head of `name.attr...`) of module m: a lazy
  // proxy there is reified, running the import it stands for at this point.
  MaybeFailure reify_global(ModuleId m, std::string_view dotted) {
    const ModuleState* st = sys_modules_.get(m);
    if (!st || st->lazy.empty()) return std::nullopt;
    std::string_view head = dotted.substr(0, dotted.find('.'));
    auto it = std::find_if(st->lazy.begin(), st->lazy.end(), [&](const LazyName& l) { return l.name == head; });
    if (it == st->lazy.end()) return std::nullopt;
    const LazyName l = *it;
    ModuleState& mut = *sys_modules_.get_mutable(m);
    mut.lazy.erase(mut.lazy.begin() + (it - st->lazy.begin()));
    const int file = a_->modules[m].file;
    const ImportStatement& imp = a_->files[file].facts.imports[l.import];
    const ImportModules& mods = cx_->events.import_modules(file, l.import);
    if (!imp.is_from) {
      for (ModuleId id : mods.aliases[l.alias].path)
        if (MaybeFailure f = import_module(id)) return f;
      return std::nullopt;
    }
    if (!mods.from) return std::nullopt;
    ModuleId x = *mods.from;
    if (MaybeFailure f = import_module(x)) return f;
    const std::string& name = imp.names[l.alias].name;
    if (MaybeFailure f = reify_global(x, name)) return f;
    const ModuleState* xs = sys_modules_.get(x);
    if (!xs || xs->bound.count(name)) return std::nullopt;
    auto sub = mods.aliases[l.alias].module;
    if (sub && sys_modules_.has(*sub)) return std::nullopt;
    return import_missing(file, l.import, l.alias, x, sub, *xs);
  }

  // `mod.attr` read at import time needs attr bound in mod.
  MaybeFailure check_use(int file, int function, const Event& e, const Locals* locals) {
    std::string_view dotted = e.name;
    auto dot = dotted.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const ImportBinding* b = nullptr;
    if (locals) {
      auto it = locals->find(std::string(dotted.substr(0, dot)));
      if (it != locals->end()) b = &it->second;
    } else {
      b = cx_->events.use_binding(file, function, e);
    }
    if (!b || !b->name.empty()) return std::nullopt;
    ModuleId cur = b->module;
    std::string_view rest = dotted.substr(dot + 1);
    if (expanded_ < skipped_.size() && may_see_skipped(cur, rest)) expand_skipped();
    while (!rest.empty()) {
      auto d = rest.find('.');
      std::string_view attr = rest.substr(0, d);
      if (MaybeFailure f = reify_global(cur, attr)) return f;
      const ModuleState* st = sys_modules_.get(cur);
      if (!st) return std::nullopt;
      auto sub = cx_->links.child(cur, attr);
      const ModuleState* sub_st = sub ? sys_modules_.get(*sub) : nullptr;
      if (st->bound.count(attr)) {
        if (!sub_st) return std::nullopt;  // a value: not followed
        cur = *sub;
      } else if (sub_st && sub_st->loading) {
        // The submodule is loading: its parent gets the attribute only when it finishes.
        return fail("AttributeError",
                    "cannot access submodule '" + std::string(attr) + "' of module '" + a_->modules[cur].name +
                        "' (most likely due to a circular import)",
                    *sub);
      } else if (st->loading && !exists_while_loading(*st, attr)) {
        return fail("AttributeError",
                    "partially initialized module '" + a_->modules[cur].name + "' has no attribute '" +
                        std::string(attr) + "' (most likely due to a circular import)",
                    cur);
      } else {
        return std::nullopt;
      }
      rest = d == std::string_view::npos ? "" : rest.substr(d + 1);
    }
    return std::nullopt;
  }
};

// Whether a module's own body holds something the interpreter reports as
// uncertain, or binds names only known when it runs (a star import).
bool quiet_body(const Analysis& a, ModuleId m, const DeferredImports& deferred) {
  if (!has_body(a, m)) return true;
  const int file = a.modules[m].file;
  const FileAnalysis& fa = a.files[file];
  for (const DynamicImport& d : fa.facts.dynamic_imports)
    if (d.at_import_time && !is_leaf(a, d)) return false;  // a leaf adds no uncertainty
  for (const Event& e : fa.facts.events)
    if (runs_first_party(fa, file, e, deferred) && fa.facts.imports[e.import].star) return false;
  return true;
}

// Whether any statement of the tree is a lazy import (PEP 810).
bool has_lazy_imports(const Analysis& a) {
  for (const FileAnalysis& fa : a.files)
    for (const ImportStatement& st : fa.facts.imports)
      if (st.is_lazy) return true;
  return false;
}

// Computes `settled` (see Settled), components sinks first, so that a
// component's tests run with everything below it already settled.
void classify(SimulationContext& cx, Settled& settled, bool bare) {
  const Analysis& a = cx.a;
  const ReadGraph& g = cx.plain.graph();
  const ReadGraph::Components& comps = cx.plain.components();
  const std::size_t modules = a.modules.size();
  settled.components = &comps;
  settled.node.assign(g.nodes(), false);
  settled.depth.assign(comps.members.size(), 0);
  if (bare) {
    settled.package_bit.assign(modules, -1);
    std::int32_t packages = 0;
    for (ModuleId m = 0; m < modules; ++m)
      if (auto p = cx.links.parent(m); p && settled.package_bit[*p] < 0) settled.package_bit[*p] = packages++;
    settled.words = (std::size_t(packages) + 63) / 64;
    settled.rows.assign(settled.words, 0);
    settled.row_of.assign(comps.members.size(), 0);
  }
  // A component's bits: its own, or'ed with its successors' rows. A component
  // that adds nothing to a single non-zero successor row shares that row.
  std::vector<std::uint64_t> scratch(settled.words);
  std::uint32_t only_row = 0;  // the one row or'ed in so far (0: none)
  bool mixed = false;          // more than that row
  auto or_row = [&](std::uint32_t row) {
    if (row == 0 || row == only_row) return;
    mixed = mixed || only_row != 0;
    only_row = row;
    const std::uint64_t* r = settled.rows.data() + std::size_t(row) * settled.words;
    for (std::size_t i = 0; i < settled.words; ++i) scratch[i] |= r[i];
  };
  auto set_bit = [&](ModuleId p) {
    std::int32_t bit = settled.package_bit[p];
    if (bit < 0) return;
    std::uint64_t& word = scratch[std::size_t(bit) / 64];
    const std::uint64_t mask = std::uint64_t(1) << (bit % 64);
    if (word & mask) return;
    word |= mask;
    mixed = true;
  };
  Interpreter tester(cx);
  for (std::uint32_t c = 0; c < comps.members.size(); ++c) {
    const auto& members = comps.members[c];
    if (bare) {
      std::fill(scratch.begin(), scratch.end(), 0);
      only_row = 0;
      mixed = false;
    }
    bool ok = true;
    std::size_t depth = 0;  // the call nesting below this component
    bool has_module = false;
    for (std::uint32_t v : members) {
      for (std::uint32_t w : g.successors(v)) {
        std::uint32_t cw = comps.of[w];
        if (cw == c) continue;
        ok = ok && settled.node[w];
        depth = std::max<std::size_t>(depth, settled.depth[cw] + (w >= modules ? 1 : 0));
        if (bare) or_row(settled.row_of[cw]);
      }
      if (v < modules) ok = ok && quiet_body(a, v, cx.deferred);
      has_module = has_module || v < modules;
      if (!bare) continue;
      // `from P import name` that is no submodule of P: fails when P is a stub.
      BodyRef body = g.body_of(v);
      if (body.file < 0 || !a.files[body.file].analysed) continue;
      const FileAnalysis& fa = a.files[body.file];
      const auto& events = body.function < 0 ? fa.facts.events : fa.facts.functions[body.function].events;
      for (const Event& e : events) {
        if (!runs_first_party(fa, body.file, e, cx.deferred)) continue;
        const ImportModules& mods = cx.events.import_modules(body.file, e.import);
        if (!mods.from) continue;
        for (const auto& alias : mods.aliases)
          if (!alias.module) set_bit(*mods.from);
      }
      if (v < modules && comps.cyclic[c]) set_bit(v);
    }
    if (bare && mixed) {
      settled.row_of[c] = std::uint32_t(settled.rows.size() / settled.words);
      settled.rows.insert(settled.rows.end(), scratch.begin(), scratch.end());
    } else if (bare) {
      settled.row_of[c] = only_row;
    }
    if (ok && comps.cyclic[c] && !has_module) {
      // Functions calling each other: each runs at most once on the call
      // stack (the interpreter's recursion guard).
      depth += members.size();
    } else if (ok && comps.cyclic[c]) {
      // Enter the component at each of its modules; the runs measure the call nesting.
      std::size_t inner = 0;
      for (std::uint32_t v : members) {
        if (v >= modules) continue;
        tester.checkpoint();
        tester.enter(v, c);
        ok = !tester.failed() && !tester.prediction().uncertain;
        inner = std::max(inner, tester.max_call_depth());
        tester.rollback();
        if (!ok) break;
      }
      depth = inner;
    }
    if (!ok || depth >= kSkipCallDepth) continue;
    settled.depth[c] = std::uint32_t(depth);
    for (std::uint32_t v : members) settled.node[v] = true;
  }
}

}  // namespace

void set_simulator_skip_threshold(std::size_t entries) { skip_threshold = entries; }

namespace {

SimulationTarget& target_slot() {
  static SimulationTarget t = default_simulation_target();
  return t;
}

// Recursive descent over a guard: expr = term {"||" term}; term = factor
// {"&&" factor}; factor = "!" factor | "(" expr ")" | atom. Three-valued
// (Kleene): an atom the evaluation cannot decide (`bases==...` with no class
// statement to read them from) is unknown, and so is what depends on it.
class GuardEval {
 public:
  GuardEval(std::string_view g, const SimulationTarget& t, const GuardBases* bases)
      : g_(g), t_(t), bases_(bases) {}
  GuardValue run() { return expr(); }
  bool read_bases() const { return read_bases_; }

 private:
  static GuardValue negate(GuardValue v) {
    return v == GuardValue::Unknown ? v : v == GuardValue::True ? GuardValue::False : GuardValue::True;
  }
  GuardValue expr() {
    GuardValue v = term();
    while (g_.substr(i_, 2) == "||") {
      i_ += 2;
      GuardValue r = term();
      if (v == GuardValue::True || r == GuardValue::True) v = GuardValue::True;
      else if (v == GuardValue::Unknown || r == GuardValue::Unknown) v = GuardValue::Unknown;
    }
    return v;
  }
  GuardValue term() {
    GuardValue v = factor();
    while (g_.substr(i_, 2) == "&&") {
      i_ += 2;
      GuardValue r = factor();
      if (v == GuardValue::False || r == GuardValue::False) v = GuardValue::False;
      else if (v == GuardValue::Unknown || r == GuardValue::Unknown) v = GuardValue::Unknown;
    }
    return v;
  }
  GuardValue factor() {
    if (i_ < g_.size() && g_[i_] == '!') {
      ++i_;
      return negate(factor());
    }
    if (i_ < g_.size() && g_[i_] == '(') {
      ++i_;
      GuardValue v = expr();
      if (i_ < g_.size() && g_[i_] == ')') ++i_;
      return v;
    }
    std::size_t end = g_.find_first_of("&|)", i_);
    if (end == std::string_view::npos) end = g_.size();
    std::string_view atom = g_.substr(i_, end - i_);
    i_ = end;
    return evaluate(atom);
  }
  static GuardValue of(bool b) { return b ? GuardValue::True : GuardValue::False; }
  GuardValue evaluate(std::string_view a) {
    if (a == "__debug__") return GuardValue::True;  // python without -O
    if (a.starts_with("bases==") || a.starts_with("bases!=")) {
      if (!bases_) return GuardValue::Unknown;
      read_bases_ = true;
      std::vector<std::string_view> names;
      for (std::string_view rest = a.substr(7); !rest.empty();) {
        const auto comma = rest.find(',');
        names.push_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
      GuardValue eq = bases_->equal(names);
      return a[5] == '=' ? eq : negate(eq);
    }
    for (auto [subject, value] : {std::pair<std::string_view, std::string_view>{"sys.platform", t_.platform},
                                  {"os.name", t_.os_name}}) {
      if (!a.starts_with(subject)) continue;
      std::string_view rest = a.substr(subject.size());
      if (rest.starts_with("==")) return of(rest.substr(2) == value);
      if (rest.starts_with("!=")) return of(rest.substr(2) != value);
      if (rest.starts_with("^=")) return of(value.starts_with(rest.substr(2)));
    }
    if (a.starts_with("sys.version_info")) {
      // Tuples compare element by element, then a longer one is greater:
      // sys.version_info has 5 fields, sys.version_info[:2] two.
      const bool sliced = a.starts_with("sys.version_info[:2]");
      std::string_view rest = a.substr(sliced ? 20 : 16);
      std::string_view op = rest.substr(0, rest.size() > 1 && rest[1] == '=' ? 2 : 1);
      std::string_view nums = rest.substr(op.size());
      const auto comma = nums.find(',');
      const int want_major = std::atoi(std::string(nums.substr(0, comma)).c_str());
      const bool one = comma == std::string_view::npos;
      const int want_minor = one ? 0 : std::atoi(std::string(nums.substr(comma + 1)).c_str());
      int cmp = t_.major < want_major ? -1 : t_.major > want_major ? 1 : 0;
      if (cmp == 0 && !one) cmp = t_.minor < want_minor ? -1 : t_.minor > want_minor ? 1 : 0;
      const std::size_t have_len = sliced ? 2 : 5, want_len = one ? 1 : 2;
      if (cmp == 0 && have_len > want_len) cmp = 1;
      if (op == ">=") return of(cmp >= 0);
      if (op == "<=") return of(cmp <= 0);
      if (op == ">") return of(cmp > 0);
      if (op == "<") return of(cmp < 0);
      if (op == "==") return of(cmp == 0);
      return of(cmp != 0);
    }
    return GuardValue::Unknown;  // not written by this collector
  }

  std::string_view g_;
  const SimulationTarget& t_;
  const GuardBases* bases_;
  std::size_t i_ = 0;
  bool read_bases_ = false;
};

}  // namespace

SimulationTarget default_simulation_target() {
  SimulationTarget t;
#if defined(_WIN32)
  t.platform = "win32";
  t.os_name = "nt";
#elif defined(__APPLE__)
  t.platform = "darwin";
  t.os_name = "posix";
#else
  t.platform = "linux";
  t.os_name = "posix";
#endif
  t.major = 3;
  t.minor = 11;
  if (FILE* p = ::popen("python3 -c 'import sys; print(*sys.version_info[:2])' 2>/dev/null", "r")) {
    int major = 0, minor = 0;
    if (std::fscanf(p, "%d %d", &major, &minor) == 2 && major > 0) {
      t.major = major;
      t.minor = minor;
    }
    ::pclose(p);
  }
  return t;
}

void set_simulation_target(const SimulationTarget& t) {
  SimulationTarget& slot = target_slot();
  if (!t.platform.empty()) slot.platform = t.platform;
  if (!t.os_name.empty()) slot.os_name = t.os_name;
  if (t.major > 0) {
    slot.major = t.major;
    slot.minor = t.minor;
  }
}

const SimulationTarget& simulation_target() { return target_slot(); }

bool evaluate_guard(std::string_view g, const SimulationTarget& t) {
  return GuardEval(g, t, nullptr).run() != GuardValue::False;
}

GuardValue evaluate_guard(std::string_view g, const SimulationTarget& t, const GuardBases* bases, bool* read_bases) {
  GuardEval e(g, t, bases);
  GuardValue v = e.run();
  if (read_bases) *read_bases = e.read_bases();
  return v;
}

SimulationResult simulate(const Analysis& a, EntryMode mode, const std::vector<ModuleId>& entries,
                          const DeferredImports& deferred) {
  const SimulationTables tables(a);
  return simulate(a, tables, mode, entries, deferred);
}

SimulationResult simulate(const Analysis& a, const SimulationTables& tables, EntryMode mode,
                          const std::vector<ModuleId>& entries, const DeferredImports& deferred) {
  SimulationResult r;
  r.mode = mode;
  std::vector<ModuleId> todo = entries;
  if (todo.empty()) {
    for (ModuleId m = 0; m < a.modules.size(); ++m)
      if (!a.modules[m].is_namespace && a.modules[m].file >= 0) todo.push_back(m);
  }
  ModuleLinks links(a.modules);
  const EventCache& events = tables.events();
  PlainModules plain(a, events, links, deferred);
  SimulationContext cx{a, mode, deferred, links, events, plain};
  // Classifying costs a pass over the read graph and a run per module in a
  // cycle: worth it when many entries share it, not for the planner's
  // single-entry checks.
  Settled settled;
  const bool lazy =
      mode == EntryMode::Lazy || !deferred.lazified.empty() || !deferred.split.empty() || !deferred.below.empty() ||
      has_lazy_imports(a);
  if (lazy) plain.disable();
  if (todo.size() >= skip_threshold.load() && !lazy) {
    cx.settled = &settled;
    classify(cx, settled, mode == EntryMode::Bare);
  }
  Interpreter in(cx);
  r.entries.resize(todo.size());
  auto record = [&](std::size_t i) {
    r.entries[i] = in.prediction();
    r.entries[i].module = todo[i];
    r.skipped = in.skipped_total();
  };
  if (mode == EntryMode::Bare) {
    for (std::size_t i = 0; i < todo.size(); ++i) {
      in.checkpoint();
      in.run(todo[i], mode);
      record(i);
      in.rollback();
    }
    return r;
  }
  // Normal entry: `import a.b.c` is `import a`, then `a.b`, then `a.b.c`; the
  // state after `import P` is the same for every module under P, so it is
  // computed once, on the way down the package tree, and each module under P
  // starts from it.
  auto parent_id = [&](ModuleId m) -> std::optional<ModuleId> {
    auto anc = cx.links.ancestors(m);
    if (anc.empty()) return std::nullopt;
    return anc.back();
  };
  std::map<std::optional<ModuleId>, std::vector<std::size_t>> starting_at;  // nullopt: the fresh state
  std::map<std::optional<ModuleId>, std::vector<ModuleId>> subpackages;
  std::function<void(ModuleId)> need = [&](ModuleId p) {
    if (starting_at.count(p)) return;
    starting_at[p];
    auto parent = parent_id(p);
    subpackages[parent].push_back(p);
    if (parent) need(*parent);
  };
  for (std::size_t i = 0; i < todo.size(); ++i) {
    ModuleId m = todo[i];
    std::optional<ModuleId> base = a.modules[m].is_package ? std::optional<ModuleId>(m) : parent_id(m);
    if (base) need(*base);
    starting_at[base].push_back(i);
  }
  // After `import p` (or in the fresh state): each entry whose base that is.
  std::function<void(std::optional<ModuleId>)> visit = [&](std::optional<ModuleId> p) {
    for (std::size_t i : starting_at[p]) {
      ModuleId m = todo[i];
      if (a.modules[m].is_package || in.failed() || in.imported(m)) {
        record(i);
      } else {
        in.checkpoint();
        in.import(m);
        record(i);
        in.rollback();
      }
    }
    for (ModuleId q : subpackages[p]) {
      in.checkpoint();
      if (!in.failed()) in.import(q);
      visit(q);
      in.rollback();
    }
  };
  visit(std::nullopt);
  return r;
}

BothModes simulate_both(const Analysis& a, const DeferredImports& deferred) {
  const SimulationTables tables(a);
  return simulate_both(a, tables, deferred);
}

BothModes simulate_both(const Analysis& a, const SimulationTables& tables, const DeferredImports& deferred) {
  // The two modes run at once, each with its own event cache (SimulationTables).
  auto bare = std::async(std::launch::async, [&] { return simulate(a, tables, EntryMode::Bare, {}, deferred); });
  SimulationResult normal = simulate(a, tables, EntryMode::Normal, {}, deferred);
  return {std::move(normal), bare.get()};
}

namespace {

// The kind of an uncertainty reason, for counts a user reads at a glance.
std::string_view reason_kind(std::string_view why) {
  if (why.starts_with("dynamic import")) return "dynamic import";
  if (why.starts_with("a circular import in a conditional branch")) return "conditional branch";
  if (why.starts_with("star import")) return "star import";
  return "other";
}

// Per kind, the number of entries with a reason of that kind.
std::map<std::string, std::size_t> uncertain_by_reason(const SimulationResult& r) {
  std::map<std::string, std::size_t> counts;
  for (const auto& e : r.entries) {
    if (!e.uncertain) continue;
    std::set<std::string_view> kinds;
    for (const auto& why : e.unknowns) kinds.insert(reason_kind(why));
    for (auto k : kinds) ++counts[std::string(k)];
  }
  return counts;
}

// What the simulation assumed rather than followed: import-time dynamic
// imports of modules that are not first-party (see is_leaf).
std::vector<std::pair<int, const DynamicImport*>> leaf_dynamic_imports(const Analysis& a) {
  std::vector<std::pair<int, const DynamicImport*>> out;
  for (std::size_t f = 0; f < a.files.size(); ++f)
    for (const DynamicImport& d : a.files[f].facts.dynamic_imports)
      if (d.at_import_time && is_leaf(a, d)) out.emplace_back(static_cast<int>(f), &d);
  return out;
}

}  // namespace

std::string simulation_assumptions(const Analysis& a) {
  auto leaves = leaf_dynamic_imports(a);
  if (leaves.empty()) return "";
  const auto& [f, d] = leaves.front();
  return "assumed: " + std::to_string(leaves.size()) +
         " import-time dynamic import(s) of modules that are not first-party run no first-party code (e.g. " +
         a.files[f].source.display + ":" + std::to_string(d->line) + " " + d->call + "('" + d->argument + "'))\n";
}

nlohmann::json simulation_json(const Analysis& a, const SimulationResult& r) {
  using nlohmann::json;
  json failing = json::array(), uncertain = json::array(), assumptions = json::array();
  for (const auto& [f, d] : leaf_dynamic_imports(a))
    assumptions.push_back({{"file", a.files[f].source.display},
                           {"line", d->line},
                           {"call", d->call},
                           {"module", d->argument},
                           {"assumption", "not first-party: runs no first-party code"}});
  for (const auto& e : r.entries) {
    if (e.fails) {
      json chain = json::array();
      for (const auto& h : e.chain)
        chain.push_back({{"module", a.modules[h.module].name}, {"file", a.modules[h.module].display}, {"line", h.line}});
      failing.push_back({{"module", a.modules[e.module].name},
                         {"error", e.error},
                         {"message", e.message},
                         {"circular", e.circular},
                         {"chain", chain},
                         {"uncertain", e.uncertain}});
    }
    if (e.uncertain) uncertain.push_back({{"module", a.modules[e.module].name}, {"reasons", e.unknowns}});
  }
  return {{"entry_mode", to_string(r.mode)},
          {"entry_points", r.entries.size()},
          {"failing_entry_points", failing},
          {"uncertain_entry_points", uncertain},
          {"uncertain_by_reason", uncertain_by_reason(r)},
          {"assumptions", assumptions}};
}

void print_simulation(std::ostream& out, const Analysis& a, const SimulationResult& r) {
  out << "cyclefix simulate (" << to_string(r.mode) << " entry): " << r.entries.size()
      << " entry points, " << r.failing() << " fail with a circular import, " << r.uncertain()
      << " uncertain\n";
  if (r.uncertain()) {
    out << "uncertain by reason:";
    const char* sep = " ";
    for (const auto& [kind, n] : uncertain_by_reason(r)) {
      out << sep << kind << " " << n;
      sep = ", ";
    }
    out << "\n";
  }
  out << simulation_assumptions(a);
  for (const auto& e : r.entries) {
    if (!e.fails) continue;
    out << "\n" << a.modules[e.module].name << ": " << e.error << ": " << e.message
        << (e.uncertain ? "  [uncertain]" : "") << "\n";
    for (const auto& h : e.chain) out << "    " << a.modules[h.module].display << ":" << h.line << "  (" << a.modules[h.module].name << ")\n";
  }
  for (const auto& e : r.entries) {
    if (!e.uncertain) continue;
    out << "\n" << a.modules[e.module].name << ": uncertain:\n";
    for (const auto& why : e.unknowns) out << "    " << why << "\n";
  }
}

}  // namespace cyclefix
