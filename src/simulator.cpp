#include "simulator.hpp"

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <unordered_map>
#include <functional>
#include <unordered_set>

#include "reachability.hpp"

namespace cyclefix {

std::string_view to_string(EntryMode m) { return m == EntryMode::Normal ? "normal" : "bare"; }

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

// The name an alias binds, as a view into the (stable) facts: no allocation.
std::string_view bound_view(const ImportAlias& a, bool is_from) {
  if (!a.asname.empty()) return a.asname;
  std::string_view n = a.name;
  return is_from ? n : n.substr(0, n.find('.'));
}

std::string parent_of(const std::string& dotted) {
  auto d = dotted.rfind('.');
  return d == std::string::npos ? "" : dotted.substr(0, d);
}

// The bodies each Call event runs: resolved once, shared by every interpreter.
class CallTargets {
 public:
  explicit CallTargets(const CalleeResolver& resolver) : resolver_(resolver) {}
  const std::vector<BodyRef>& of(int file, int function, const Event& e) {
    auto it = cache_.find(&e);
    if (it == cache_.end()) it = cache_.emplace(&e, resolver_.resolve_call(file, function, e.name)).first;
    return it->second;
  }

 private:
  const CalleeResolver& resolver_;
  std::unordered_map<const Event*, std::vector<BodyRef>> cache_;
};

// A fresh interpreter importing modules. Copyable: the simulator snapshots the
// state after `import pkg` and continues from it for every module under pkg.
class Interpreter {
 public:
  Interpreter(const Analysis& a, const CalleeResolver& resolver, CallTargets& calls, const DeferredImports& deferred)
      : a_(&a), resolver_(&resolver), calls_(&calls), deferred_(&deferred), sys_modules_(a.modules.size()) {}

  const EntryPrediction& prediction() const { return out_; }
  bool failed() const { return out_.fails; }
  bool imported(ModuleId m) const {
    const ModuleState* st = sys_modules_.get(m);
    return st && !st->loading;
  }

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
    }
  }

  void run(ModuleId entry, EntryMode mode) {
    if (mode == EntryMode::Bare) {
      // The entry's ancestors are in sys.modules, but their bodies never ran.
      std::string name = a_->modules[entry].name;
      std::vector<std::string> ancestors;
      for (std::string p = parent_of(name); !p.empty(); p = parent_of(p)) ancestors.insert(ancestors.begin(), p);
      for (const auto& p : ancestors) {
        if (auto id = a_->modules.find(p)) {
          sys_modules_.at(*id).loading = false;
          sys_modules_.at(*id).bare = true;
          bind_in_parent(*id);
        }
      }
    }
    import(entry);
  }

 private:
  // Names bound in a module: a sorted vector of views into the facts and module
  // names, cheap to copy when the interpreter is snapshotted.
  class NameSet {
   public:
    void insert(std::string_view n) {
      auto it = std::lower_bound(names_.begin(), names_.end(), n);
      if (it == names_.end() || *it != n) names_.insert(it, n);
    }
    bool count(std::string_view n) const { return std::binary_search(names_.begin(), names_.end(), n); }
    auto begin() const { return names_.begin(); }
    auto end() const { return names_.end(); }

   private:
    std::vector<std::string_view> names_;
  };

  struct ModuleState {
    bool present = false;  // in sys.modules
    bool loading = true;
    bool bare = false;  // a stub package whose body never ran (bare entry)
    NameSet bound;
  };

  // sys.modules, indexed by module id.
  class ModuleTable {
   public:
    explicit ModuleTable(std::size_t n) : states_(n) {}
    ModuleState* get(ModuleId m) { return states_[m].present ? &states_[m] : nullptr; }
    const ModuleState* get(ModuleId m) const { return states_[m].present ? &states_[m] : nullptr; }
    bool has(ModuleId m) const { return states_[m].present; }
    ModuleState& at(ModuleId m) {
      states_[m].present = true;
      return states_[m];
    }
    void erase(ModuleId m) { states_[m] = ModuleState{}; }

   private:
    std::vector<ModuleState> states_;
  };

  const Analysis* a_;
  const CalleeResolver* resolver_;
  CallTargets* calls_;
  const DeferredImports* deferred_;
  EntryPrediction out_;
  ModuleTable sys_modules_;
  std::vector<ChainHop> stack_;
  std::set<std::pair<int, int>> active_;  // bodies being run (recursion guard)

  void unknown(std::string why) {
    out_.uncertain = true;
    if (std::find(out_.unknowns.begin(), out_.unknowns.end(), why) == out_.unknowns.end())
      out_.unknowns.push_back(std::move(why));
  }

  std::string where(int file, int line) const {
    return a_->files[file].source.display + ":" + std::to_string(line);
  }

  // A circular-import failure about the partially initialised module `partial`.
  Failure fail(std::string error, std::string message, ModuleId partial) const {
    return Failure{std::move(error), std::move(message), stack_, true, partial};
  }
  Failure fail_not_circular(std::string error, std::string message) const {
    return Failure{std::move(error), std::move(message), stack_, false, std::nullopt};
  }

  void bind_in_parent(ModuleId m) {
    std::string parent = parent_of(a_->modules[m].name);
    if (parent.empty()) return;
    auto p = a_->modules.find(parent);
    if (!p) return;
    if (ModuleState* st = sys_modules_.get(*p)) st->bound.insert(last_component(a_->modules[m].name));
  }

  MaybeFailure import_module(ModuleId m) {
    if (sys_modules_.has(m)) return std::nullopt;
    // Parents first, each only if not already in sys.modules.
    const std::string& name = a_->modules[m].name;
    for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      auto p = a_->modules.find(std::string_view(name).substr(0, dot));
      if (p && !sys_modules_.has(*p)) {
        if (MaybeFailure f = exec_module(*p)) return f;
      }
    }
    if (sys_modules_.has(m)) return std::nullopt;  // a parent's body imported it
    return exec_module(m);
  }

  MaybeFailure exec_module(ModuleId m) {
    const ModuleInfo& info = a_->modules[m];
    sys_modules_.at(m).loading = true;
    if (info.is_namespace || info.file < 0 || !a_->files[info.file].analysed) {
      sys_modules_.at(m).loading = false;
      bind_in_parent(m);
      return std::nullopt;
    }
    for (const DynamicImport& d : a_->files[info.file].facts.dynamic_imports) {
      if (d.at_import_time)
        unknown("dynamic import " + d.call + "(" + (d.argument.empty() ? "..." : "'" + d.argument + "'") +
                ") at import time at " + where(info.file, d.line) + ": not followed");
    }
    stack_.push_back({m, info.display, 0});
    MaybeFailure f = run_body(info.file, -1, a_->files[info.file].facts.events);
    stack_.pop_back();
    if (f) {
      sys_modules_.erase(m);  // a failed import leaves no module behind
      return f;
    }
    sys_modules_.at(m).loading = false;
    bind_in_parent(m);
    return std::nullopt;
  }

  using Locals = std::unordered_map<std::string, ImportBinding>;

  MaybeFailure run_body(int file, int function, const std::vector<Event>& events) {
    const FileAnalysis& fa = a_->files[file];
    Locals locals;  // names bound by imports inside this function call
    // A body of another module's function gets its own hop in the chain.
    bool pushed = !stack_.empty() && stack_.back().module != fa.module;
    if (pushed) stack_.push_back({fa.module, fa.source.display, 0});
    MaybeFailure result;
    for (const Event& e : events) {
      if (!stack_.empty()) stack_.back().line = e.line;
      MaybeFailure f;
      switch (e.kind) {
        case Event::Kind::Import:
          if (!deferred_->empty() && deferred_->count({file, e.import})) break;  // moved out of import time
          f = do_import(file, function, e, locals);
          if (f && e.guarded) {
            unknown("a circular import failure is caught by try/except at " + where(file, e.line));
            f.reset();
          }
          break;
        case Event::Kind::Bind:
          if (function < 0) sys_modules_.at(fa.module).bound.insert(e.name);
          break;
        case Event::Kind::Use:
          f = check_use(file, e.name, e.local ? &locals : nullptr);
          break;
        case Event::Kind::Call:
          f = do_call(file, function, e);
          break;
      }
      if (f && e.conditional) {
        // A branch inside a function that runs at import time: it may not be taken.
        unknown("a circular import in a conditional branch of " + fa.facts.functions[function].qualified_name +
                "() at " + where(file, e.line) + " (" + f->message + ")");
        f.reset();
      }
      if (f) {
        result = std::move(f);
        break;
      }
    }
    if (pushed) stack_.pop_back();
    return result;
  }

  MaybeFailure do_call(int file, int function, const Event& e) {
    if (active_.size() >= kMaxCallDepth) return std::nullopt;
    for (BodyRef b : calls_->of(file, function, e)) {
      auto key = std::make_pair(b.file, b.function);
      if (active_.count(key)) continue;
      active_.insert(key);
      MaybeFailure f = run_body(b.file, b.function, a_->files[b.file].facts.functions[b.function].events);
      active_.erase(key);
      if (f) return f;
    }
    return std::nullopt;
  }

  void bind_here(int file, int function, std::string_view name) {
    if (function < 0) sys_modules_.at(a_->files[file].module).bound.insert(name);
  }

  void bind_local(Locals& locals, const std::string& name, ModuleId module, std::string attr = {}) {
    locals[name] = ImportBinding{module, std::move(attr)};
  }

  MaybeFailure do_import(int file, int function, const Event& e, Locals& locals) {
    const FileAnalysis& fa = a_->files[file];
    const ImportStatement& st = fa.facts.imports[e.import];
    const ResolvedImport& res = fa.resolved[e.import];
    if (!res.first_party) {
      for (const auto& al : st.names) bind_here(file, function, bound_view(al, st.is_from));
      return std::nullopt;
    }
    if (!st.is_from) {
      for (const ImportAlias& alias : st.names) {
        const std::string& full = alias.name;
        for (std::size_t dot = 0;;) {
          std::size_t next = full.find('.', dot);
          std::string prefix = full.substr(0, next);
          auto id = a_->modules.find(prefix);
          if (!id) break;  // not ours, or missing: not a circular-import question
          if (MaybeFailure f = import_module(*id)) return f;
          if (next == std::string::npos) break;
          dot = next + 1;
        }
        bind_here(file, function, bound_view(alias, false));
        std::string target = alias.asname.empty() ? full.substr(0, full.find('.')) : full;
        if (auto id = a_->modules.find(target)) bind_local(locals, alias.bound_name(false), *id);
      }
      return std::nullopt;
    }
    auto x = a_->modules.find(res.absolute_module);
    if (!x) return std::nullopt;
    if (MaybeFailure f = import_module(*x)) return f;
    ModuleState* state = sys_modules_.get(*x);
    if (!state) return std::nullopt;
    if (st.star) {
      if (state->loading)
        unknown("star import from partially initialized module '" + res.absolute_module + "' at " +
                where(file, e.line));
      const auto& facts_x = a_->modules[*x].file >= 0 ? &a_->files[a_->modules[*x].file].facts : nullptr;
      for (const auto& n : state->bound) {
        bool exported = facts_x && facts_x->dunder_all
                            ? std::count(facts_x->dunder_all->begin(), facts_x->dunder_all->end(), n) > 0
                            : n.rfind('_', 0) != 0;
        if (exported) bind_here(file, function, n);
      }
      return std::nullopt;
    }
    for (const ImportAlias& alias : st.names) {
      state = sys_modules_.get(*x);
      if (!state) break;
      if (!state->bound.count(alias.name)) {
        const std::string& file_x = a_->modules[*x].display;
        const std::string in_file = file_x.empty() ? "" : " (" + file_x + ")";
        if (auto sub = a_->modules.find(res.absolute_module + "." + alias.name)) {
          if (MaybeFailure f = import_module(*sub)) return f;
        } else if (state->loading) {
          return fail("ImportError",
                      "cannot import name '" + alias.name + "' from partially initialized module '" +
                          res.absolute_module + "' (most likely due to a circular import)" + in_file,
                      *x);
        } else if (state->bare) {
          // A stub package (bare entry): nothing was ever bound in it.
          return fail_not_circular("ImportError", "cannot import name '" + alias.name + "' from '" +
                                                      res.absolute_module + "'" + in_file);
        }
        // Otherwise the module finished without binding the name as far as we
        // can see (dynamic bindings); not a circular-import question.
      }
      bind_here(file, function, bound_view(alias, true));
      if (auto sub = a_->modules.find(res.absolute_module + "." + alias.name))
        bind_local(locals, alias.bound_name(true), *sub);
      else
        bind_local(locals, alias.bound_name(true), *x, alias.name);
    }
    return std::nullopt;
  }

  // `mod.attr` read at import time needs attr bound in mod.
  MaybeFailure check_use(int file, const std::string& dotted, const Locals* locals) {
    auto dot = dotted.find('.');
    if (dot == std::string::npos) return std::nullopt;
    std::optional<ImportBinding> b;
    if (locals) {
      auto it = locals->find(dotted.substr(0, dot));
      if (it != locals->end()) b = it->second;
    } else {
      b = resolver_->binding(file, dotted.substr(0, dot));
    }
    if (!b || !b->name.empty()) return std::nullopt;
    ModuleId cur = b->module;
    std::string rest = dotted.substr(dot + 1);
    while (!rest.empty()) {
      auto d = rest.find('.');
      std::string attr = rest.substr(0, d);
      ModuleState* st = sys_modules_.get(cur);
      if (!st) return std::nullopt;
      if (st->bound.count(attr)) {
        auto sub = a_->modules.find(a_->modules[cur].name + "." + attr);
        if (!sub || !sys_modules_.has(*sub)) return std::nullopt;  // a value: not followed
        cur = *sub;
      } else if (auto sub = a_->modules.find(a_->modules[cur].name + "." + attr);
                 sub && sys_modules_.has(*sub) && sys_modules_.at(*sub).loading) {
        // The submodule is loading: its parent gets the attribute only when it finishes.
        return fail("AttributeError",
                    "cannot access submodule '" + attr + "' of module '" + a_->modules[cur].name +
                        "' (most likely due to a circular import)",
                    *sub);
      } else if (st->loading) {
        return fail("AttributeError",
                    "partially initialized module '" + a_->modules[cur].name + "' has no attribute '" + attr +
                        "' (most likely due to a circular import)",
                    cur);
      } else {
        return std::nullopt;
      }
      rest = d == std::string::npos ? "" : rest.substr(d + 1);
    }
    return std::nullopt;
  }
};

}  // namespace

SimulationResult simulate(const Analysis& a, EntryMode mode, const std::vector<ModuleId>& entries,
                          const DeferredImports& deferred) {
  SimulationResult r;
  r.mode = mode;
  CalleeResolver resolver(a.files, a.modules);
  std::vector<ModuleId> todo = entries;
  if (todo.empty()) {
    for (ModuleId m = 0; m < a.modules.size(); ++m)
      if (!a.modules[m].is_namespace && a.modules[m].file >= 0) todo.push_back(m);
  }
  CallTargets calls(resolver);
  const Interpreter fresh(a, resolver, calls, deferred);
  auto parent_id = [&](ModuleId m) -> std::optional<ModuleId> {
    std::string p = parent_of(a.modules[m].name);
    for (; !p.empty(); p = parent_of(p))
      if (auto id = a.modules.find(p)) return id;
    return std::nullopt;
  };
  // Normal entry: `import a.b.c` is `import a`, then `a.b`, then `a.b.c`; the state
  // after `import P` is the same for every module under P, so it is computed once.
  std::map<ModuleId, Interpreter> after;
  std::function<const Interpreter&(ModuleId)> state_after = [&](ModuleId p) -> const Interpreter& {
    if (auto it = after.find(p); it != after.end()) return it->second;
    auto parent = parent_id(p);
    Interpreter st = parent ? state_after(*parent) : fresh;
    if (!st.failed()) st.import(p);
    return after.emplace(p, std::move(st)).first->second;
  };
  for (ModuleId m : todo) {
    EntryPrediction p;
    if (mode == EntryMode::Normal) {
      auto parent = parent_id(m);
      if (a.modules[m].is_package) {
        p = state_after(m).prediction();
      } else {
        const Interpreter& base = parent ? state_after(*parent) : fresh;
        if (base.failed() || base.imported(m)) {
          p = base.prediction();
        } else {
          Interpreter st = base;
          st.import(m);
          p = st.prediction();
        }
      }
    } else {
      Interpreter st = fresh;
      st.run(m, mode);
      p = st.prediction();
    }
    p.module = m;
    r.entries.push_back(std::move(p));
  }
  return r;
}

nlohmann::json simulation_json(const Analysis& a, const SimulationResult& r) {
  using nlohmann::json;
  json failing = json::array(), uncertain = json::array();
  for (const auto& e : r.entries) {
    if (e.fails) {
      json chain = json::array();
      for (const auto& h : e.chain)
        chain.push_back({{"module", a.modules[h.module].name}, {"file", h.file}, {"line", h.line}});
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
          {"uncertain_entry_points", uncertain}};
}

void print_simulation(std::ostream& out, const Analysis& a, const SimulationResult& r) {
  out << "cyclefix simulate (" << to_string(r.mode) << " entry): " << r.entries.size()
      << " entry points, " << r.failing() << " fail with a circular import, " << r.uncertain()
      << " uncertain\n";
  for (const auto& e : r.entries) {
    if (!e.fails) continue;
    out << "\n" << a.modules[e.module].name << ": " << e.error << ": " << e.message
        << (e.uncertain ? "  [uncertain]" : "") << "\n";
    for (const auto& h : e.chain) out << "    " << h.file << ":" << h.line << "  (" << a.modules[h.module].name << ")\n";
  }
  for (const auto& e : r.entries) {
    if (!e.uncertain) continue;
    out << "\n" << a.modules[e.module].name << ": uncertain:\n";
    for (const auto& why : e.unknowns) out << "    " << why << "\n";
  }
}

}  // namespace cyclefix
