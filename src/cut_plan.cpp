#include "cut_plan.hpp"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <fnmatch.h>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "cut_solver.hpp"
#include "progress.hpp"
#include "reachability.hpp"
#include "reexports.hpp"
#include "simulator.hpp"
#include "source_reader.hpp"
#include "source_text.hpp"
#include "strings.hpp"
#include "ts.hpp"

namespace cyclefix {

std::string_view to_string(Strategy s) {
  switch (s) {
    case Strategy::Bypass: return "bypass";
    case Strategy::LateBind: return "late-bind";
    case Strategy::Lazy: return "lazy";
    case Strategy::MoveBelow: return "move-below";
    case Strategy::Extract: return "extract";
    case Strategy::Defer: break;
  }
  return "defer";
}

std::string cut_summary(const CandidateStatement& c, std::string_view statement, const std::vector<std::string>& loops,
                        const std::string& detail) {
  const std::string st = "`" + std::string(statement) + "`";
  std::string what;
  switch (c.strategy) {
    case Strategy::Defer: what = "Defer " + st; break;
    case Strategy::Bypass: what = "Import the names of " + st + " from the modules that define them"; break;
    case Strategy::LateBind: what = "Late-bind " + st + " (import the module, read the names through it)"; break;
    case Strategy::Lazy: what = "Make " + st + " lazy"; break;
    case Strategy::MoveBelow: what = "Move " + st + " below the definitions it needs"; break;
    case Strategy::Extract:
      what = "Move what " + st + " takes into a new module, " + c.extract.module + ", and import it from there";
      break;
  }
  const std::string loop = loops.empty() ? std::string("an import cycle") : "import cycle " + loops.front();
  const std::string more =
      loops.size() > 1 ? " and " + std::to_string(loops.size() - 1) + " more loop(s)" : std::string();
  return what + (detail.empty() ? "" : " (" + detail + ")") +
         (keeps_edge(c.strategy) ? ": it fixes the import failure on " + loop + more + " (the loop stays)"
                                 : ": it breaks " + loop + more);
}

std::string changed_instead(const CutPlan& plan, const std::vector<int>& cuts, const CandidateStatement& pinned) {
  for (int i : cuts) {
    const CandidateStatement& cut = plan.candidates[i];
    if (cut.file == pinned.file && cut.import == pinned.import)
      return (cut.split ? "split, " : "") + std::string(to_string(cut.strategy));
  }
  return "";
}

std::vector<const NameUse*> late_bound_uses(const FileAnalysis& fa, const CandidateStatement& c) {
  std::map<std::uint32_t, const NameUse*> at;
  for (const NameUse& u : fa.facts.uses)
    if (u.kind == UseKind::Deferred && !u.in_string &&
        std::any_of(c.late.names.begin(), c.late.names.end(), [&](const auto& n) { return n.first == u.name(); }))
      at.emplace(u.begin, &u);
  std::vector<const NameUse*> out;
  for (const auto& [begin, u] : at) out.push_back(u);
  return out;
}

namespace {

std::string at(const Analysis& a, int file, int line) {
  return a.files[file].source.display + ":" + std::to_string(line);
}

// Lines a statement spans.
double statement_lines(const ImportStatement& st) {
  return 1.0 + static_cast<double>(std::count(st.text.begin(), st.text.end(), '\n'));
}

// A cost as printed: no trailing zeros.
std::string number(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl) + " ...";
}

// Who else needs a name bound in a module: `from M import n` anywhere, or `M.n` read.
class ExternalNeeds {
 public:
  ExternalNeeds(const Analysis& a, const CalleeResolver& resolver) {
    for (std::size_t f = 0; f < a.files.size(); ++f) {
      const FileAnalysis& fa = a.files[f];
      if (!fa.analysed) continue;
      for (std::size_t i = 0; i < fa.facts.imports.size() && i < fa.resolved.size(); ++i) {
        for (const ImportTarget& t : fa.resolved[i].targets) {
          if (t.reason == EdgeReason::NameFrom && t.name != "*")
            note(t.module, t.name, "imported from here by " + at(a, static_cast<int>(f), fa.facts.imports[i].line));
        }
        // Function-level `from M import n` needs n in M too (it is not an edge).
        const ImportStatement& st = fa.facts.imports[i];
        if (st.is_from && !st.star && !fa.resolved[i].absolute_module.empty()) {
          if (auto m = a.modules.find(fa.resolved[i].absolute_module)) {
            for (const auto& al : st.names) {
              if (!a.modules.find(fa.resolved[i].absolute_module + "." + al.name))
                note(*m, al.name, "imported from here by " + at(a, static_cast<int>(f), st.line));
            }
          }
        }
      }
      for (const NameUse& u : fa.facts.uses) {
        if (u.dotted.find('.') == std::string::npos) continue;
        auto mp = resolver.module_prefix(static_cast<int>(f), u.dotted);
        if (!mp || mp->second.empty()) continue;
        std::string attr = mp->second.substr(0, mp->second.find('.'));
        note(mp->first, attr, "read as " + a.modules[mp->first].name + "." + attr + " by " +
                                  at(a, static_cast<int>(f), u.line));
      }
    }
  }

  const std::string* find(ModuleId m, const std::string& name) const {
    auto it = needs_.find({m, name});
    return it == needs_.end() ? nullptr : &it->second;
  }

 private:
  void note(ModuleId m, const std::string& name, std::string why) { needs_.emplace(std::make_pair(m, name), std::move(why)); }
  std::map<std::pair<ModuleId, std::string>, std::string> needs_;  // first reason wins
};

// Decides whether one statement can be deferred, filling reason/cost/functions.
// `pins`: which bodies run while a module downstream of the cycles is being
// imported (see plan_cuts).
// `only`: assess these names of the statement alone (a split, see
// split_failing_statements); the others stay at module level.
void assess(const Analysis& a, const Reachability& pins, const ExternalNeeds& needs,
            const RuntimeAnnotations& runtime, const PlanOptions& options, CandidateStatement& c,
            const std::vector<std::string>* only = nullptr) {
  const FileAnalysis& fa = a.files[c.file];
  const ImportStatement& st = fa.facts.imports[c.import];
  c.names = st.bound_names();
  if (!st.is_from && st.names.size() > 1) {
    // `import pkg.b as pb, json`: only the first-party aliases move; `import json`
    // stays at module level (unless it binds the same name as one that moves).
    std::vector<std::string> moving, staying;
    for (const ImportAlias& al : st.names) {
      std::string_view top = std::string_view(al.name).substr(0, al.name.find('.'));
      (a.modules.has_top_level(top) ? moving : staying).push_back(al.bound_name(false));
    }
    bool shared = std::any_of(staying.begin(), staying.end(), [&](const std::string& n) {
      return std::find(moving.begin(), moving.end(), n) != moving.end();
    });
    if (!moving.empty() && !shared) c.names = moving;
  }
  if (only) c.names = *only;
  auto pin = [&](std::string reason) {
    if (c.cuttable || c.reason.empty()) c.reason = std::move(reason);
    c.cuttable = false;
  };
  c.cuttable = true;
  // In a module-level block only `lazy` can cut it (the local imports would
  // not know the block's condition): the other rules still decide.
  const bool only_lazy = st.context == ImportContext::ConditionalIf && options.target_minor >= 15;
  switch (st.context) {
    case ImportContext::ModuleLevel: break;
    case ImportContext::TryExcept: pin("inside try/except at module level"); break;
    case ImportContext::ConditionalIf:
      if (!only_lazy) pin("inside a module-level if/for/while/with block");
      break;
    case ImportContext::TypeCheckingElse: pin("in the else branch of an `if TYPE_CHECKING:`"); break;
    case ImportContext::ClassBody: pin("in a class body (binds a class attribute)"); break;
    case ImportContext::FunctionBody:
      pin("inside " + st.scope + "(), which runs at import time");
      break;
    case ImportContext::TypeChecking: pin("under TYPE_CHECKING (never runs)"); break;
    case ImportContext::MainGuard: pin("under `if __name__ == \"__main__\":` (never runs on import)"); break;
  }
  if (!c.cuttable) return;
  if (st.star) return pin("star import: the names it binds are not known statically");
  if (!fa.rewritable) return pin("the file has syntax errors and is not rewritten");
  if (fa.source.is_package && !options.allow_init_cuts)
    return pin("in a package __init__.py: its names are public API (--allow-init-cuts to lift)");
  std::set<std::string> functions, type_checking;
  bool reified_elsewhere = false;
  for (const std::string& name : c.names) {
    if (fa.facts.dunder_all &&
        std::find(fa.facts.dunder_all->begin(), fa.facts.dunder_all->end(), name) != fa.facts.dunder_all->end())
      return pin("re-exported: '" + name + "' is listed in __all__");
    if (const std::string* why = needs.find(fa.module, name)) return pin("re-exported: '" + name + "' " + *why);
    bool used = false;
    for (const NameUse& u : fa.facts.uses) {
      if (u.name() != name) continue;
      used = true;
      switch (u.kind) {
        case UseKind::ImportTime:
          if (std::strcmp(u.where, "__main__ block") == 0)
            return pin("used under `if __name__ == \"__main__\":` at " + at(a, c.file, u.line) +
                       ": running the file as a script needs the module-level name");
          return pin("used at import time: '" + name + "' " +
                     (std::strcmp(u.where, "module level") == 0 ? std::string("at module level")
                                                                 : std::string("in a ") + u.where) +
                     " at " + at(a, c.file, u.line));
        case UseKind::Annotation:
          if (const std::string* why = runtime.reason(c.file, u))
            return pin("annotation read at run time: '" + name + "' at " + at(a, c.file, u.line) + ", where " + *why);
          type_checking.insert(name);
          break;
        case UseKind::Deferred: {
          if (u.function < 0)
            return pin("used in a lambda outside any function at " + at(a, c.file, u.line));
          const int fi = u.function;
          const std::string fn_name(fa.facts.function_name(u));
          // A module __getattr__ runs whenever anything probes the module
          // (`from m import x` asks it for `__path__`), also while a module of
          // the cycle imports from it: any import-time run pins.
          const bool probe = fi >= 0 && fa.facts.functions[fi].qualified_name == "__getattr__";
          const Reachability& r = probe ? a.reach : pins;
          if (r.body_runs(c.file, fi))
            return pin("used at import time: '" + name + "' in " + fn_name + "() at " + at(a, c.file, u.line) +
                       (r.assumed[c.file][fi]
                            ? std::string(", which the model assumes may run at import: ") +
                                  Reachability::describe(r.assumption[c.file][fi]) + " (the chain starts at "
                            : std::string(", which module-level code runs (the call at ")) +
                       at(a, r.reached_from[c.file][fi], r.reached_line[c.file][fi]) + ")");
          // Read in a body that runs while some other module imports (a test, a
          // script): a lazy import would be reified there, an import-time edge
          // the graph counts, so only deferring makes that cut.
          if (fi >= 0 && a.reach.body_runs(c.file, fi) && !reified_elsewhere) {
            reified_elsewhere = true;
            c.lazy_refusal = "'" + name + "' is read in " + fn_name + "(), which runs while " +
                             display_name(a.modules[a.files[a.reach.reached_from[c.file][fi]].module]) +
                             " is imported (the call at " +
                             at(a, a.reach.reached_from[c.file][fi], a.reach.reached_line[c.file][fi]) +
                             "): a lazy import would be reified there";
          }
          if (fi >= 0 && std::count(fa.facts.functions[fi].globals.begin(), fa.facts.functions[fi].globals.end(), name))
            return pin("'" + name + "' is declared global in " + fn_name +
                       "(): a local import there would rebind the module's name, at " + at(a, c.file, u.line));
          break;
        }
      }
    }
    if (!used) return pin("'" + name + "' is never used here: the import may be there for its side effects");
  }
  c.lazy_eligible = !reified_elsewhere;
  if (only_lazy) return pin("inside a module-level if/for/while/with block");
  for (const auto& [fi, names] : functions_importing(fa.facts, c.names))
    functions.insert(fa.facts.functions[fi].qualified_name);
  c.functions.assign(functions.begin(), functions.end());
  c.type_checking.assign(type_checking.begin(), type_checking.end());
  const double lines = statement_lines(st);
  c.cost = kCostPerStatementLine * lines + kCostPerFunction * static_cast<double>(c.functions.size()) +
           kCostPerTypeCheckingEntry * static_cast<double>(c.type_checking.size()) +
           (fa.source.is_package ? kCostPackageInit : 0.0);
  c.defer_cost = c.cost;
  c.cost_terms = number(lines * kCostPerStatementLine) + " (statement line" + (lines == 1 ? "" : "s") + ")";
  if (!c.functions.empty())
    c.cost_terms += " + " + std::to_string(c.functions.size()) + " x " + number(kCostPerFunction) + " (functions)";
  if (!c.type_checking.empty())
    c.cost_terms += " + " + std::to_string(c.type_checking.size()) + " x " + number(kCostPerTypeCheckingEntry) +
                    " (TYPE_CHECKING)";
  if (fa.source.is_package) c.cost_terms += " + " + number(kCostPackageInit) + " (package __init__)";
}

// The modules that reach `m` in the import-time graph (m included), computed
// once per importer: a module outside this set can be imported by m without
// closing a loop, whatever else the plan cuts.
class ReachesBack {
 public:
  // `removed`: edges left out (those a plan's cuts remove).
  explicit ReachesBack(const Analysis& a, const std::function<bool(const ImportEdge&)>& removed = {})
      : a_(a), in_(a.modules.size()) {
    for (const ImportEdge& e : a.graph.edges())
      if (!removed || !removed(e)) in_[e.to].push_back(e.from);
  }
  const std::vector<char>& of(ModuleId m) {
    auto& slot = memo_[m];
    if (!slot.empty()) return slot;
    slot.assign(a_.modules.size(), 0);
    std::vector<ModuleId> todo = {m};
    slot[m] = 1;
    while (!todo.empty()) {
      ModuleId v = todo.back();
      todo.pop_back();
      for (ModuleId u : in_[v])
        if (!slot[u]) {
          slot[u] = 1;
          todo.push_back(u);
        }
    }
    return slot;
  }

 private:
  const Analysis& a_;
  std::vector<std::vector<ModuleId>> in_;
  std::map<ModuleId, std::vector<char>> memo_;
};

// The module as the bypassed statement should write it: relative, with as few
// dots as reach it, when the statement was relative; else absolute.
std::string written_module(const Analysis& a, ModuleId importer, const ImportStatement& st, const std::string& mod) {
  for (int k = 1; k <= st.level; ++k) {
    auto base = a.modules.relative_base(importer, k);
    if (!base) break;
    if (mod == *base) return std::string(static_cast<std::size_t>(k), '.');
    if (is_ancestor(*base, mod)) return std::string(static_cast<std::size_t>(k), '.') + mod.substr(base->size() + 1);
  }
  return mod;
}

// Whether importing `hop` from `importer` at module level runs nothing that
// imports `importer` back; `why` says what would, when it does.
bool safe_origin(const Analysis& a, ModuleId importer, const OriginHop& hop, ReachesBack& back, std::string* why) {
  if (!hop.first_party) return true;  // another package: runs no first-party code
  const std::string& self = a.modules[importer].name;
  const bool submodule = hop.is_module && !hop.name.empty();  // `from X import sub` takes no name from X
  if (hop.module == self || (!submodule && is_ancestor(hop.module, self))) {
    *why = "'" + hop.module + "' is " + (hop.module == self ? "the module itself" : "its own package");
    return false;
  }
  if (submodule) {
    // `from pkg import sub` reads the package's attribute first: a package that
    // binds `sub` itself (SQLAlchemy's orm: `mapper = public_factory(...)`)
    // gives that object, not the submodule.
    if (auto pkg = a.modules.find(hop.module); pkg && a.modules[*pkg].file >= 0)
      for (const Definition& d : a.files[static_cast<std::size_t>(a.modules[*pkg].file)].facts.definitions)
        if (d.name == hop.name && d.kind != Definition::Kind::Import) {
          *why = "'" + hop.module + "' binds '" + hop.name + "' itself (line " + std::to_string(d.line) +
                 "), which `from " + hop.module + " import " + hop.name + "` would give instead of the submodule";
          return false;
        }
  }
  const std::vector<char>& reaches = back.of(importer);
  std::vector<std::string> executed;
  for (std::size_t end = 0; end != std::string::npos;) {
    end = hop.module.find('.', end + 1);
    executed.push_back(hop.module.substr(0, end));
  }
  if (hop.is_module && !hop.name.empty()) executed.push_back(hop.module + "." + hop.name);
  for (const std::string& m : executed) {
    if (m == self || is_ancestor(m, self)) continue;  // already loading: not run again
    auto id = a.modules.find(m);
    if (!id) {
      *why = "'" + m + "' is not a module here";
      return false;
    }
    if (reaches[*id]) {
      *why = "'" + m + "' imports " + self + " back";
      return false;
    }
  }
  return true;
}

// Bypass: `from X import n` where X only re-binds n from the module that
// defines it (docs/planner.md). Applies when every name of the statement has
// an origin that does not import the importer back; then the statement is
// rewritten in place, which works even where a name is used at import time.
void assess_bypass(const Analysis& a, ReachesBack& back, CandidateStatement& c) {
  const FileAnalysis& fa = a.files[c.file];
  const ImportStatement& st = fa.facts.imports[c.import];
  const ResolvedImport& r = fa.resolved[c.import];
  if (!st.is_from || st.star || !fa.rewritable || !r.first_party || r.absolute_module.empty()) return;
  if (st.context == ImportContext::TypeChecking || st.context == ImportContext::MainGuard) return;
  std::vector<BypassName> names;
  std::vector<std::string> refusals;
  std::vector<std::pair<std::string, std::string>> defined_by;  // (bound name, origin as shown)
  std::set<std::string> statements;
  const std::string as_written = std::string(static_cast<std::size_t>(st.level), '.') + st.module;
  for (const ImportAlias& al : st.names) {
    const std::string bound = al.bound_name(true);
    if (a.modules.find(r.absolute_module + "." + al.name)) {
      // A submodule stays as it is (`from . import sub` of the importer's own
      // package runs only the submodule), when the submodule does not import back.
      std::string why;
      if (!safe_origin(a, fa.module, {r.absolute_module, al.name, true, true}, back, &why)) {
        refusals.push_back("'" + al.name + "' is a submodule of " + r.absolute_module + ", and " + why);
        continue;
      }
      names.push_back({bound, as_written, al.name});
      statements.insert("from " + as_written);
      continue;
    }
    OriginChain chain = origin_chain(a, r.absolute_module, al.name);
    std::string unsafe;
    const OriginHop* chosen = nullptr;
    std::size_t chosen_at = 0;
    for (std::size_t h = chain.hops.size(); h-- > 1;) {
      std::string why;
      if (safe_origin(a, fa.module, chain.hops[h], back, &why)) {
        chosen = &chain.hops[h];
        chosen_at = h;
        break;
      }
      if (unsafe.empty()) unsafe = why;
    }
    if (!chosen) {
      // Said in the pin's reason only when there was a re-export to follow:
      // "defined where it is imported from" is no news.
      if (chain.hops.size() > 1)
        refusals.push_back("'" + al.name + "' comes from " + chain.hops.back().module + ", but " + unsafe);
      else if (!chain.stop.empty())
        refusals.push_back(chain.stop);
      else
        refusals.emplace_back();
      continue;
    }
    BypassName b;
    b.bound = bound;
    b.module = chosen->first_party ? written_module(a, fa.module, st, chosen->module) : chosen->module;
    if (chosen->is_module && chosen->name.empty()) {
      b.module = chosen->module;  // `import a.b as n`: absolute
    } else {
      b.name = chosen->name;
    }
    statements.insert(b.name.empty() ? "import " + b.module + " as " + b.bound : "from " + b.module);
    const std::string dotted = chosen->name.empty() ? chosen->module : chosen->module + "." + chosen->name;
    std::string origin = "`" + (chosen->name == bound ? chosen->module : dotted) + "`";
    if (!chosen->first_party) origin += " (outside the tree)";
    std::vector<std::string> via;  // the re-exports in between
    for (std::size_t h = 1; h < chosen_at; ++h) via.push_back("`" + chain.hops[h].module + "`");
    if (!via.empty()) origin += ", re-exported by " + join(via, ", ");
    defined_by.emplace_back(bound, std::move(origin));
    names.push_back(std::move(b));
  }
  if (!refusals.empty() || defined_by.empty()) {
    auto said = std::find_if(refusals.begin(), refusals.end(), [](const std::string& r) { return !r.empty(); });
    if (said != refusals.end() && !c.cuttable) c.reason += "; no bypass: " + *said;
    if (said != refusals.end()) c.bypass_refusal = *said;
    return;
  }
  // "`Error`, `Warning` are defined by `m`; `Tags` is defined by `r`"
  std::vector<std::string> hows;
  std::set<std::string> said;
  for (const auto& [bound, origin] : defined_by) {
    if (!said.insert(origin).second) continue;
    std::vector<std::string> same;
    for (const auto& [b, o] : defined_by)
      if (o == origin) same.push_back("`" + b + "`");
    hows.push_back(join(same, ", ") + (same.size() == 1 ? " is" : " are") + " defined by " + origin);
  }
  const double lines = statement_lines(st);
  const double cost = kCostPerStatementLine * (lines + static_cast<double>(statements.size())) +
                      (fa.source.is_package ? kCostPackageInit : 0.0);
  if (c.cuttable && c.cost <= cost) return;
  c.cuttable = true;
  c.strategy = Strategy::Bypass;
  c.bypass = std::move(names);
  c.how = "bypass re-export: " + join(hows, "; ");
  c.cost = cost;
  c.cost_terms = number(lines * kCostPerStatementLine) + " (statement line" + (lines == 1 ? "" : "s") + ") + " +
                 number(static_cast<double>(statements.size()) * kCostPerStatementLine) + " (statement" +
                 (statements.size() == 1 ? "" : "s") + " written)";
  if (fa.source.is_package) c.cost_terms += " + " + number(kCostPackageInit) + " (package __init__)";
  c.functions.clear();
  c.type_checking.clear();
}

// A statement of the defining file that an extraction moves: its bytes as
// whole lines, with the comment lines right above it and its decorators
// (moved_statement: false, with `why`, when it cannot move on its own).
struct MovedStatement {
  std::uint32_t begin = 0, end = 0;
};

bool moved_statement(std::string_view s, const ModuleFacts& facts, const Definition& d, MovedStatement* out,
                     std::string* why) {
  const std::uint32_t first_line = text::line_start(s, d.begin);
  std::uint32_t begin = first_line;
  auto starts = [&](std::string_view word) { return s.substr(first_line, word.size()) == word; };
  if (d.kind == Definition::Kind::Assignment) {
    if (begin != d.begin) return *why = "'" + d.name + "' is not assigned by a statement of its own", false;
  } else if (d.kind == Definition::Kind::Function) {
    auto f = std::find_if(facts.functions.begin(), facts.functions.end(), [&](const FunctionInfo& fn) {
      return fn.qualified_name == d.name && fn.begin <= d.begin && d.begin < fn.end;
    });
    if (f == facts.functions.end() || text::line_start(s, f->begin) != f->begin)
      return *why = "the def of '" + d.name + "' is not at the start of its line", false;
    begin = f->begin;
  } else if (d.kind == Definition::Kind::Class) {
    auto c = std::find_if(facts.classes.begin(), facts.classes.end(),
                          [&](const ClassInfo& ci) { return ci.qualified_name == d.name && ci.line == d.line; });
    if (c == facts.classes.end() || !starts("class "))
      return *why = "the class '" + d.name + "' is not a plain class statement", false;
    for (std::size_t k = 0; k < c->decorators.size(); ++k) {
      if (begin == 0) return *why = "a decorator of '" + d.name + "' is not on a line of its own", false;
      const std::uint32_t prev = text::line_start(s, begin - 1);
      if (s[prev] != '@') return *why = "a decorator of '" + d.name + "' spans lines", false;
      begin = prev;
    }
  } else {
    return *why = "'" + d.name + "' is imported, not defined", false;
  }
  if (d.kind != Definition::Kind::Assignment && text::is_space(s[first_line]))
    return *why = "'" + d.name + "' is defined inside a block", false;
  // Nothing after the statement on its last line but a comment.
  std::uint32_t e = d.end;
  while (e < s.size() && text::is_space(s[e])) ++e;
  if (e < s.size() && s[e] != '\n' && s[e] != '\r' && s[e] != '#')
    return *why = "another statement shares the line of '" + d.name + "'", false;
  // The comment lines right above it go with it (not a #! line or an
  // encoding declaration, which belong to the file).
  while (begin > 0) {
    const std::uint32_t prev = text::line_start(s, begin - 1);
    const std::string_view comment = s.substr(prev, begin - prev);
    if (s[prev] != '#' || comment.starts_with("#!") || comment.find("coding") != std::string_view::npos) break;
    begin = prev;
  }
  out->begin = begin;
  out->end = text::next_line(s, d.end);
  return true;
}

// Names whose meaning changes when code moves to another module, and calls
// that read the module's namespace: code reading them does not move.
bool reads_its_module(std::string_view name) {
  static const std::set<std::string_view, std::less<>> names = {
      "__name__", "__file__", "__spec__", "__package__", "__path__", "__loader__", "__builtins__",
      "__cached__", "globals", "locals", "vars", "eval", "exec"};
  return names.count(name) > 0;
}

// Extraction (docs/planner.md): a `from M import n` pinned because n is read
// at import time, where M defines n itself (nothing to bypass). n's
// definition, with the definitions of M it reads (a closure), moves to a new
// module beside M, `_<M>_defs`; the new module gets the import statements of
// M that the moved code reads, each of which must run no module that imports
// M or the importer back. M imports the names back from it (so every other
// reader of M.n is served as before) and the statement imports them from it:
// the edge to M is gone. Refused for anything but the simple case: a name
// defined once, by a def, class or assignment statement of its own at module
// level; moved code that reads its module (__name__, globals()); a name a
// function rebinds with `global`; a star import in M; more than
// kMaxExtractLines lines. A class or function that moves gets the new
// module as its __module__ (pickles and reprs name it); the plan says so.
constexpr std::size_t kMaxExtractLines = 60;
constexpr double kCostNewModule = 4.0;

// The statement as an extraction (a copy of `c` with Strategy::Extract), or
// nothing, with the reason in *refusal when there is one to say. The planner
// offers it only for loops that nothing else breaks (plan_cuts), and says the
// refusal only for the statements of such loops.
std::optional<CandidateStatement> extraction_of(const Analysis& a, ReachesBack& back, const CandidateStatement& c,
                                                std::string* refusal) {
  if (c.cuttable) return std::nullopt;
  const FileAnalysis& fa = a.files[c.file];
  const ImportStatement& st = fa.facts.imports[c.import];
  const ResolvedImport& r = fa.resolved[c.import];
  if (!st.is_from || st.star || st.is_lazy || !fa.rewritable || !r.first_party || r.absolute_module.empty() ||
      st.context != ImportContext::ModuleLevel)
    return std::nullopt;
  const auto source_id = a.modules.find(r.absolute_module);
  if (!source_id || a.modules[*source_id].file < 0 || *source_id == fa.module) return std::nullopt;
  const ModuleInfo& source_mod = a.modules[*source_id];
  const FileAnalysis& sa = a.files[static_cast<std::size_t>(source_mod.file)];
  const ModuleFacts& facts = sa.facts;
  auto refuse = [&](const std::string& why) -> std::optional<CandidateStatement> {
    *refusal = why;
    return std::nullopt;
  };
  for (const ImportAlias& al : st.names)
    if (a.modules.find(r.absolute_module + "." + al.name)) return std::nullopt;  // a submodule: nothing to move
  if (!sa.rewritable) return refuse(sa.source.display + " has syntax errors");
  for (const ImportStatement& other : facts.imports)
    if (other.star && other.context != ImportContext::FunctionBody)
      return refuse(source_mod.name + " has a star import (line " + std::to_string(other.line) +
                    "): its names are not known");
  const SourceText text = read_source(sa.source.path);
  if (!text.ok) return std::nullopt;  // an analysis of sources in memory: nothing to move
  if (std::hash<std::string_view>{}(text.bytes) != sa.content_hash)
    return refuse(sa.source.display + " changed since it was read");
  const std::string_view s = text.bytes;

  std::map<std::string_view, std::vector<int>, std::less<>> defined;  // module-level name -> definitions
  for (std::size_t i = 0; i < facts.definitions.size(); ++i)
    defined[facts.definitions[i].name].push_back(static_cast<int>(i));
  std::set<std::string_view, std::less<>> global_decls;  // rebound by functions
  for (const FunctionInfo& f : facts.functions) global_decls.insert(f.globals.begin(), f.globals.end());

  // The closure: statements to move, by start byte; imports of M it reads.
  std::map<std::uint32_t, MovedStatement> moved;
  std::vector<std::string> names;  // moved names, in order found
  std::map<int, std::set<std::string>> imports;
  std::vector<std::string_view> todo;
  for (const ImportAlias& al : st.names) todo.push_back(al.name);
  std::set<std::string_view, std::less<>> seen;
  std::size_t lines = 0;
  // The modules the new module runs must not import M or the importer back.
  const std::vector<char>& reaches_source = back.of(*source_id);
  const std::vector<char>& reaches_importer = back.of(fa.module);
  while (!todo.empty()) {
    const std::string_view name = todo.back();
    todo.pop_back();
    if (!seen.insert(name).second) continue;
    auto it = defined.find(name);
    if (it == defined.end()) return refuse("'" + std::string(name) + "' is not defined at module level by " + source_mod.name);
    if (it->second.size() > 1)
      return refuse("'" + std::string(name) + "' is bound " + std::to_string(it->second.size()) + " times in " +
                    source_mod.name);
    const Definition& d = facts.definitions[static_cast<std::size_t>(it->second.front())];
    if (global_decls.count(name)) return refuse("a function of " + source_mod.name + " rebinds '" + std::string(name) + "' (global)");
    if (d.kind == Definition::Kind::Import && std::any_of(st.names.begin(), st.names.end(),
                                                          [&](const ImportAlias& al) { return al.name == name; }))
      return refuse("'" + std::string(name) + "' is imported by " + source_mod.name + " (a re-export: nothing to move)");
    if (d.kind == Definition::Kind::Import) {
      // Read by moved code: the new module imports it too.
      auto imp = std::find_if(facts.imports.begin(), facts.imports.end(),
                              [&](const ImportStatement& i) { return i.stmt_begin == d.begin; });
      if (imp == facts.imports.end() || imp->context != ImportContext::ModuleLevel || imp->star || imp->is_lazy)
        return refuse("'" + std::string(name) + "' is imported by " + source_mod.name + " inside a block");
      const int i = static_cast<int>(imp - facts.imports.begin());
      const ResolvedImport& ri = sa.resolved[static_cast<std::size_t>(i)];
      for (const ImportTarget& t : ri.targets) {
        const std::string& tn = a.modules[t.module].name;
        // A package only on the dotted path to the module imported, which is
        // loading already when the new module runs (an ancestor of M).
        if (is_ancestor(tn, source_mod.name) && tn != ri.absolute_module) continue;
        if (reaches_source[t.module] || reaches_importer[t.module])
          return refuse("'" + std::string(name) + "' comes from " + tn + ", which imports " +
                        (reaches_source[t.module] ? source_mod.name : a.modules[fa.module].name) + " back");
      }
      imports[i].insert(std::string(name));
      continue;
    }
    MovedStatement m;
    std::string why;
    if (!moved_statement(s, facts, d, &m, &why)) return refuse(why);
    if (moved.count(m.begin)) continue;
    // Every definition the statement makes moves with it.
    for (const Definition& other : facts.definitions)
      if (other.begin >= m.begin && other.begin < m.end && other.name != d.name) todo.push_back(other.name);
    for (const FunctionInfo& f : facts.functions)
      if (f.begin >= m.begin && f.begin < m.end && !f.globals.empty())
        return refuse(f.qualified_name + "() declares a global");
    bool clean = true;
    for (const std::string& id : ts::identifiers(s.substr(m.begin, m.end - m.begin), &clean)) {
      if (reads_its_module(id)) return refuse("'" + std::string(name) + "' reads " + id);
      if (defined.count(id) && !seen.count(id)) todo.push_back(defined.find(id)->first);
    }
    if (!clean) return refuse("'" + std::string(name) + "' does not parse on its own");
    lines += static_cast<std::size_t>(std::count(s.begin() + m.begin, s.begin() + m.end, '\n'));
    if (lines > kMaxExtractLines)
      return refuse("the definitions to move span more than " + std::to_string(kMaxExtractLines) + " lines");
    moved.emplace(m.begin, m);
    names.emplace_back(name);
  }
  // The new module: `_<stem>_defs` beside M (inside M when M is a package).
  const std::string& mname = source_mod.name;
  const std::size_t dot = mname.rfind('.');
  const std::string parent = source_mod.is_package ? mname : dot == std::string::npos ? "" : mname.substr(0, dot);
  std::string stem = dot == std::string::npos ? mname : mname.substr(dot + 1);
  stem.erase(0, stem.find_first_not_of('_'));
  const std::filesystem::path dir = std::filesystem::path(sa.source.path).parent_path();
  std::string module, file;
  for (int k = 1; k < 10 && module.empty(); ++k) {
    const std::string leaf = "_" + stem + "_defs" + (k > 1 ? std::to_string(k) : "");
    const std::string full = parent.empty() ? leaf : parent + "." + leaf;
    std::error_code ec;
    if (a.modules.find(full) || std::filesystem::exists(dir / (leaf + ".py"), ec) || std::filesystem::exists(dir / leaf, ec))
      continue;
    module = full;
    file = leaf + ".py";
  }
  if (module.empty()) return refuse("no free name for the new module beside " + sa.source.display);
  // Importing the new module runs its packages: none may import the importer back.
  const std::string& self = a.modules[fa.module].name;
  for (std::size_t end = module.find('.'); end != std::string::npos; end = module.find('.', end + 1)) {
    const std::string pkg = module.substr(0, end);
    if (pkg == self || is_ancestor(pkg, self)) continue;
    if (auto id = a.modules.find(pkg); id && reaches_importer[*id])
      return refuse("importing " + module + " runs " + pkg + ", which imports " + self + " back");
  }

  CandidateStatement e = c;
  Extraction& x = e.extract;
  x.file = source_mod.file;
  x.module = module;
  x.path = dir / file;
  x.display = (std::filesystem::path(sa.source.display).parent_path() / file).generic_string();
  x.statements.clear();
  for (const auto& [begin, m] : moved) x.statements.emplace_back(m.begin, m.end);
  x.lines = lines;
  x.imports.clear();
  for (auto& [i, n] : imports) x.imports.emplace_back(i, std::vector<std::string>(n.begin(), n.end()));
  x.names = std::move(names);
  std::sort(x.names.begin(), x.names.end(), [&](const std::string& p, const std::string& q) {
    return facts.definitions[defined.find(p)->second.front()].begin < facts.definitions[defined.find(q)->second.front()].begin;
  });
  e.bypass.clear();
  for (const ImportAlias& al : st.names)
    e.bypass.push_back({al.bound_name(true), written_module(a, fa.module, st, module), al.name});
  const double stmt = statement_lines(st);
  const double written = static_cast<double>(2 * lines + x.imports.size() + 3 + 1);
  const double penalties = kCostNewModule + (sa.source.is_package ? kCostPackageInit : 0.0) +
                           (fa.source.is_package ? kCostPackageInit : 0.0);
  const std::string pin = c.reason.substr(0, c.reason.find("; no "));
  e.cuttable = true;
  e.strategy = Strategy::Extract;
  e.cost = kCostPerStatementLine * (written + stmt + 1) + penalties;
  e.cost_terms = number(static_cast<double>(2 * lines)) + " (lines moved) + " +
                 number(static_cast<double>(x.imports.size() + 4)) + " (imports and header written) + " +
                 number(stmt + 1) + " (statement rewritten) + " + number(kCostNewModule) + " (new module)";
  if (sa.source.is_package || fa.source.is_package) e.cost_terms += " + package __init__";
  std::vector<std::string> quoted;
  for (const std::string& n : x.names) quoted.push_back("`" + n + "`");
  bool code = false;
  for (const std::string& n : x.names) {
    const Definition::Kind k = facts.definitions[defined.find(n)->second.front()].kind;
    code = code || k == Definition::Kind::Class || k == Definition::Kind::Function;
  }
  e.how = "extract module: " + pin + "; " + join(quoted, ", ") + (quoted.size() == 1 ? " moves" : " move") +
          " from " + mname + " to a new module " + module + ", which imports no module of the loop; " + mname +
          " imports " + (quoted.size() == 1 ? "it" : "them") + " back from there" +
          (code ? " (a moved class or function gets " + module + " as its __module__)" : "");
  e.reason.clear();
  e.functions.clear();
  e.type_checking.clear();
  return e;
}

// Late binding (--only-failing): `from X import n` -> `from <parent of X> import
// <last>` (or `import X` for a top-level X) with each use of n read as
// `<last>.n`. Applies to a statement that can be deferred (every use is in a
// function that does not run while the cycle loads, no one imports n from
// here), with no annotation use, importing from a module (not names of a
// package's own __init__, which `from . import` cannot name), when the module's
// last name is free in the file. It keeps a module-level import (what a
// reviewer expects) and costs two diff lines per changed use line.
void assess_late_binding(const Analysis& a, CandidateStatement& c) {
  const FileAnalysis& fa = a.files[c.file];
  const ImportStatement& st = fa.facts.imports[c.import];
  const ResolvedImport& r = fa.resolved[c.import];
  LateBinding& late = c.late;
  auto refuse = [&](std::string why) { late.refusal = std::move(why); };
  if (!c.cuttable || c.strategy != Strategy::Defer) return;
  if (!st.is_from || st.star || !r.first_party || st.is_lazy || st.context != ImportContext::ModuleLevel) return;
  if (!c.type_checking.empty()) return refuse("'" + c.type_checking.front() + "' is used in an annotation");
  if (st.module.empty()) return refuse("the names come from the package's own __init__ (no module to bind)");
  if (!a.modules.find(r.absolute_module)) return;
  for (const ImportAlias& al : st.names)
    if (a.modules.find(r.absolute_module + "." + al.name)) return refuse("'" + al.name + "' is a submodule already");
  const std::size_t dot = st.module.rfind('.');
  const std::string last = dot == std::string::npos ? st.module : st.module.substr(dot + 1);
  const std::string dots(static_cast<std::size_t>(st.level), '.');
  if (dot != std::string::npos)
    late.statement = "from " + dots + st.module.substr(0, dot) + " import " + last;
  else
    late.statement = st.level ? "from " + dots + " import " + last : "import " + last;
  // The module's name must mean nothing else anywhere in the file (uses read it
  // in functions, where a local of the same name would shadow it).
  auto taken = [&]() -> std::string {
    for (const Definition& d : fa.facts.definitions)
      if (d.name == last) return "defined at line " + std::to_string(d.line);
    for (const NameUse& u : fa.facts.uses)
      if (u.name() == last) return "used at line " + std::to_string(u.line);
    for (const FunctionInfo& f : fa.facts.functions)
      if (std::binary_search(f.locals.begin(), f.locals.end(), last)) return "a local of " + f.qualified_name + "()";
    for (const ImportStatement& other : fa.facts.imports)
      for (const std::string& n : other.bound_names())
        if (n == last) return "bound by the import at line " + std::to_string(other.line);
    return {};
  }();
  if (!taken.empty()) return refuse("the name '" + last + "' is taken in the file (" + taken + ")");
  late.prefix = last;
  for (const ImportAlias& al : st.names) late.names.emplace_back(al.bound_name(true), al.name);
  std::set<int> lines;
  for (const NameUse* u : late_bound_uses(fa, c)) lines.insert(u->line);
  const double removed = statement_lines(st);
  late.cost = kCostPerStatementLine * (removed + 1) + kCostChangedLine * static_cast<double>(lines.size()) +
              (fa.source.is_package ? kCostPackageInit : 0.0);
  late.cost_terms = number(removed + 1) + " (statement rewritten) + " + std::to_string(lines.size()) +
                    " x 2 (use lines)";
  if (fa.source.is_package) late.cost_terms += " + " + number(kCostPackageInit) + " (package __init__)";
}

// Lazy (Python >= 3.15, PEP 810): `lazy ` in front of a module-level statement
// that could be deferred: no name it binds is read at import time (not at
// module level, not in a body that runs while the cycle loads, not by another
// module's import-time `from here import n`), and every name is used (a lazy
// import of an unused name would drop its side effects). Annotations are not
// evaluated when defined from 3.14 (PEP 649), so annotation uses need no
// TYPE_CHECKING entry; annotations that libraries read at run time pinned the
// statement already. CPython rejects `lazy` in a try, a function, a class, on
// a star import and on `from __future__`. One changed line: the cheapest cut,
// except that a bypass of equal cost is kept (it removes the edge on every
// Python version).
void assess_lazy(const Analysis& a, const PlanOptions& options, CandidateStatement& c) {
  if (options.target_minor < 15 || !c.lazy_eligible) return;
  const FileAnalysis& fa = a.files[c.file];
  const ImportStatement& st = fa.facts.imports[c.import];
  if ((st.context != ImportContext::ModuleLevel && st.context != ImportContext::ConditionalIf) || st.star ||
      st.is_lazy || (st.is_from && st.module == "__future__"))
    return;
  const double cost = kCostChangedLine + (fa.source.is_package ? kCostPackageInit : 0.0);
  if (c.strategy == Strategy::Bypass && c.cost <= cost) return;
  c.cuttable = true;
  c.reason.clear();
  c.strategy = Strategy::Lazy;
  c.cost = cost;
  c.cost_terms = number(kCostChangedLine) + " (statement line changed)";
  if (fa.source.is_package) c.cost_terms += " + " + number(kCostPackageInit) + " (package __init__)";
  c.how = "lazy import: no name it binds is read while the cycle loads; the import runs on first use (PEP 810)";
  c.bypass.clear();
  c.functions.clear();
  c.type_checking.clear();
}

// The loop of a circular failure: the chain from the hop of the partially
// initialised module to the failing hop, then back to that module (first ==
// last). Empty when the chain does not show the module.
std::vector<ModuleId> failure_loop(const EntryPrediction& e) {
  if (!e.partial) return {};
  auto it = std::find_if(e.chain.begin(), e.chain.end(), [&](const ChainHop& h) { return h.module == *e.partial; });
  if (it == e.chain.end()) return {};
  std::vector<ModuleId> loop;
  for (; it != e.chain.end(); ++it)
    if (loop.empty() || loop.back() != it->module) loop.push_back(it->module);
  loop.push_back(*e.partial);
  return loop;
}

// What the simulator should do with a cut's statement.
void add_cut(DeferredImports& d, const CandidateStatement& c) {
  switch (c.strategy) {
    // An extraction's statement imports the new module, which imports no
    // module of the loop: to the simulator it is a bypass.
    case Strategy::Bypass:
    case Strategy::Extract: d.rebound.insert({c.file, c.import}); break;
    case Strategy::LateBind: d.late.insert({c.file, c.import}); break;
    case Strategy::MoveBelow:
      d.below[{c.file, c.import}] = c.below_line;
      break;
    case Strategy::Lazy:
      // A split lazy name is read nowhere at import time (assess), so leaving
      // it unbound while the cycle loads is what its proxy amounts to.
      if (c.split) d.split[{c.file, c.import}] = c.names;
      else d.lazified.insert({c.file, c.import});
      break;
    case Strategy::Defer:
      if (c.split) d.split[{c.file, c.import}] = c.names;
      else d.moved.insert({c.file, c.import});
      break;
  }
}

DeferredImports deferred_of(const CutPlan& plan, const std::vector<int>& cuts);

// The certain circular failures of a simulation outside --select's skipped components.
std::set<std::pair<EntryMode, ModuleId>> certain_failures(const BothModes& both, const std::vector<char>& skipped) {
  std::set<std::pair<EntryMode, ModuleId>> out;
  for (const SimulationResult* r : {&both.normal, &both.bare})
    for (const EntryPrediction& e : r->entries) {
      if (!e.fails || !e.circular || e.uncertain) continue;
      const ModuleId at_fault = e.partial ? *e.partial : e.chain.empty() ? e.module : e.chain.back().module;
      if (!skipped[at_fault]) out.insert({r->mode, e.module});
    }
  return out;
}

// --only-failing chose its cuts as deferrals; a cut that late binding makes
// cheaper becomes late-bound when the simulator, with every other cut as
// chosen, finds no certain failure the deferral did not leave too. Late
// binding leaves the edge, so it can only fix the loop whose last hop the
// statement is: the simulation decides.
void prefer_late_binding(const Analysis& a, const SimulationTables& tables, const std::vector<char>& skipped, CutPlan& plan,
                         std::vector<std::uint32_t>& cuts, double& cost) {
  std::vector<int> chosen(cuts.begin(), cuts.end());
  std::set<std::pair<EntryMode, ModuleId>> allowed;
  bool simulated = false;
  for (int i : chosen) {
    CandidateStatement& c = plan.candidates[i];
    if (c.late.cost <= 0 || c.late.cost >= c.cost) continue;
    if (!simulated) {
      allowed = certain_failures(simulate_both(a, tables, deferred_of(plan, chosen)), skipped);
      simulated = true;
    }
    c.strategy = Strategy::LateBind;
    if (certain_failures(simulate_both(a, tables, deferred_of(plan, chosen)), skipped) != allowed) {
      c.strategy = Strategy::Defer;
      c.late.refusal = "late binding leaves a failing import (the simulation with it fails)";
      continue;
    }
    cost += c.late.cost - c.cost;
    c.cost = c.late.cost;
    c.cost_terms = c.late.cost_terms;
    std::vector<std::string> reads;
    for (const auto& [bound, attr] : c.late.names) reads.push_back("`" + bound + "` as `" + c.late.prefix + "." + attr + "`");
    c.how = "late binding: reads " + join(reads, ", ") + " where used (" +
            std::to_string(late_bound_uses(a.files[c.file], c).size()) + " use(s)); the module may be partially "
            "initialised when `" + c.late.statement + "` runs";
    c.functions.clear();
  }
}

// Bounds the simulate-and-solve loop by a count (not the clock), so the plan is deterministic.
constexpr std::size_t kMaxRounds = 100;

// --only-failing: cuts that leave no certain circular failure in either entry
// mode (see CutPlan). `inst` is the acyclic mode's instance; its statements are
// the plan's candidates. Failures in a component that --select skipped (by the
// partially initialised module, else the failing one) are neither fixed nor counted.
void plan_only_failing(const Analysis& a, const SimulationTables& tables, const CutInstance& inst,
                       const PlanOptions& options,
                       const std::vector<char>& skipped, CutPlan& plan) {
  const auto start = std::chrono::steady_clock::now();
  plan.only_failing = true;
  std::map<std::pair<ModuleId, ModuleId>, std::uint32_t> edge_index;
  std::vector<char> removable(inst.edges.size(), 0);
  for (std::size_t e = 0; e < inst.edges.size(); ++e) {
    const auto& edge = inst.edges[e];
    edge_index.emplace(std::make_pair(edge.from, edge.to), static_cast<std::uint32_t>(e));
    removable[e] = !edge.statements.empty() && std::all_of(edge.statements.begin(), edge.statements.end(),
                                                           [&](auto st) { return bool(inst.statement_cuttable[st]); });
  }
  CutOptions co;
  co.time_limit_s = options.time_limit_s;
  co.exact = options.exact;

  std::vector<std::vector<std::uint32_t>> loops;  // what the cuts must hit: removable edges of each loop
  std::set<std::vector<std::uint32_t>> known;
  std::set<std::vector<ModuleId>> unbreakable;
  DeferredImports deferred;
  CutSolution sol;
  sol.method = "trivial";
  sol.optimal = true;
  for (std::size_t round = 1;; ++round) {
    const auto [normal, bare] = simulate_both(a, tables, deferred);
    plan.rounds = round;
    FailingCounts failing, uncertain;
    std::size_t added = 0, repeated = 0;  // repeated: certain failures no new loop explains
    unbreakable.clear();
    for (const SimulationResult* r : {&normal, &bare}) {
      for (const EntryPrediction& e : r->entries) {
        if (!e.fails || !e.circular) continue;
        const ModuleId at_fault = e.partial ? *e.partial : e.chain.empty() ? e.module : e.chain.back().module;
        if (skipped[at_fault]) continue;
        (r->mode == EntryMode::Normal ? failing.normal : failing.bare)++;
        if (e.uncertain) {
          (r->mode == EntryMode::Normal ? uncertain.normal : uncertain.bare)++;
          continue;  // a guess: it drives no cuts
        }
        std::vector<ModuleId> loop = failure_loop(e);
        if (loop.empty()) {
          ++repeated;  // the chain does not show the partially initialised module: nothing to hit
          continue;
        }
        std::vector<std::uint32_t> row;
        for (std::size_t i = 0; i + 1 < loop.size(); ++i) {
          auto it = edge_index.find({loop[i], loop[i + 1]});
          if (it != edge_index.end() && removable[it->second]) row.push_back(it->second);
        }
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        if (row.empty()) {
          unbreakable.insert(std::move(loop));
        } else if (known.insert(row).second) {
          loops.push_back(std::move(row));
          ++added;
        } else {
          ++repeated;  // the cuts hit this loop, yet it still fails: the edge model missed a hop
        }
      }
    }
    if (round == 1) {
      plan.failing_before = failing;
      plan.uncertain_before = uncertain;
    }
    plan.failing_after = failing;
    plan.uncertain_after = uncertain;
    if (added == 0 || round >= kMaxRounds) {
      plan.converged = added == 0 && repeated == 0;
      break;
    }
    sol = solve_hitting(inst, loops, co);
    deferred.clear();
    for (auto st : sol.cut_statements) add_cut(deferred, plan.candidates[st]);
  }
  const double deferred_cost = sol.cost;
  prefer_late_binding(a, tables, skipped, plan, sol.cut_statements, sol.cost);
  if (sol.cost < deferred_cost) {
    // The bound was for deferring; late binding is a local improvement, not a proof.
    sol.lower_bound = std::min(sol.lower_bound, sol.cost);
    sol.optimal = false;
  }
  for (auto st : sol.cut_statements) plan.cuts.push_back(static_cast<int>(st));
  plan.cost = sol.cost;
  plan.lower_bound = sol.lower_bound;
  plan.optimal = sol.optimal && plan.converged;
  plan.gap = plan.optimal ? 0 : std::max(0.0, plan.cost - plan.lower_bound) / std::max(plan.cost, 1e-12);
  plan.method = sol.method;
  plan.failure_loops = loops.size();
  plan.unbreakable_loops.assign(unbreakable.begin(), unbreakable.end());
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What the plan so far leaves failing, for the changes made one at a time
// after the loop (a split, a move below).
struct Failing {
  std::set<std::pair<EntryMode, ModuleId>> certain;  // certain circular failures
  std::set<std::pair<EntryMode, ModuleId>> all;      // every failing entry, certain or not

  static std::set<std::pair<EntryMode, ModuleId>> every(const BothModes& b) {
    std::set<std::pair<EntryMode, ModuleId>> out;
    for (const SimulationResult* r : {&b.normal, &b.bare})
      for (const EntryPrediction& e : r->entries)
        if (e.fails) out.insert({r->mode, e.module});
    return out;
  }
  // A change whose simulation is `with` is kept when it leaves fewer certain
  // failures (or `progress` says it helped otherwise) and no entry fails that
  // did not fail before.
  bool kept(const BothModes& with, const std::vector<char>& skipped, bool progress = false) const {
    const auto after = every(with);
    return (certain_failures(with, skipped).size() < certain.size() || progress) &&
           std::includes(all.begin(), all.end(), after.begin(), after.end());
  }
};

// Rounds of single changes: each round simulates the plan and offers its
// certain circular failures, in order, to `try_one` until it keeps a change
// (returns true); stops when nothing fails, a round keeps nothing, or after
// kMaxRounds.
void change_one_at_a_time(
    const Analysis& a, const SimulationTables& tables, const std::vector<char>& skipped, const CutPlan& plan,
    const std::function<bool(const SimulationResult&, const EntryPrediction&, const Failing&)>& try_one) {
  for (std::size_t round = 0; round < kMaxRounds; ++round) {
    const BothModes both = simulate_both(a, tables, deferred_of(plan, plan.cuts));
    const Failing failing{certain_failures(both, skipped), Failing::every(both)};
    if (failing.certain.empty()) return;
    bool progress = false;
    for (const SimulationResult* r : {&both.normal, &both.bare})
      for (const EntryPrediction& e : r->entries) {
        if (progress) break;
        if (e.fails && e.circular && !e.uncertain) progress = try_one(*r, e, failing);
      }
    if (!progress) return;
  }
}

// --only-failing, after the loop (issue 17 item 2, "split a multi-name
// import"): a certain failure `cannot import name 'n' from partially
// initialized module` at a module-level `from M import n, m` that is pinned
// because of its other names (m is read at import time). Deferring n alone,
// the statement stays with m (which M has bound by then) and n is imported
// where it is used. Kept when n alone passes every deferral rule and the
// simulation with it leaves fewer certain failures and none new; one split at
// a time, until none helps.
void split_failing_statements(const Analysis& a, const SimulationTables& tables, const Reachability& pins,
                              const ExternalNeeds& needs,
                              const RuntimeAnnotations& runtime, const PlanOptions& options,
                              const std::vector<char>& skipped, CutPlan& plan) {
  static const std::string kPrefix = "cannot import name '";
  std::set<std::pair<int, int>> tried;
  change_one_at_a_time(a, tables, skipped, plan, [&](const SimulationResult&, const EntryPrediction& e, const Failing& failing) {
    if (e.chain.empty() || e.message.rfind(kPrefix, 0) != 0) return false;
    const std::string name = e.message.substr(kPrefix.size(), e.message.find('\'', kPrefix.size()) - kPrefix.size());
    const ChainHop& hop = e.chain.back();
    const int file = a.modules[hop.module].file;
    if (file < 0) return false;
    const FileAnalysis& fa = a.files[file];
    int import = -1;
    std::string bound;
    for (std::size_t ii = 0; ii < fa.facts.imports.size() && import < 0; ++ii) {
      const ImportStatement& st = fa.facts.imports[ii];
      if (st.line != hop.line || !st.is_from || st.star || st.names.size() < 2 ||
          st.context != ImportContext::ModuleLevel)
        continue;
      for (const ImportAlias& al : st.names)
        if (al.name == name) {
          import = static_cast<int>(ii);
          bound = al.bound_name(true);
        }
    }
    if (import < 0 || !tried.insert({file, import}).second) return false;
    if (std::any_of(plan.cuts.begin(), plan.cuts.end(), [&](int i) {
          return plan.candidates[i].file == file && plan.candidates[i].import == import;
        }))
      return false;
    CandidateStatement c;
    c.file = file;
    c.import = import;
    for (const ImportTarget& t : fa.resolved[import].targets) c.targets.push_back(t.module);
    const std::vector<std::string> only = {bound};
    assess(a, pins, needs, runtime, options, c, &only);
    if (!c.cuttable) return false;
    c.split = true;
    c.how = "split: only `" + bound + "` moves, into the functions that use it; the other names stay at module "
            "level, where they are read at import time";
    if (options.target_minor >= 15 && c.lazy_eligible) {
      // PEP 810 (issue 18 item 3): `bound` on a lazy statement of its own
      // below, the rest stays eager. One line changed, one added.
      c.strategy = Strategy::Lazy;
      c.cost = 2 * kCostChangedLine;
      c.cost_terms = number(kCostChangedLine) + " (statement line changed) + " + number(kCostChangedLine) +
                     " (lazy statement added)";
      c.how = "split: only `" + bound + "` becomes a lazy import, on a line of its own; the other names stay "
              "eager, where they are read at import time";
      c.functions.clear();
      c.type_checking.clear();
    }
    plan.candidates.push_back(std::move(c));
    plan.cuts.push_back(static_cast<int>(plan.candidates.size() - 1));
    if (failing.kept(simulate_both(a, tables, deferred_of(plan, plan.cuts)), skipped)) {
      plan.cost += plan.candidates.back().cost;
      return true;
    }
    plan.cuts.pop_back();
    plan.candidates.pop_back();
    return false;
  });
}

// The name a certain circular failure could not get from the partially
// initialised module: CPython's "cannot import name 'X' from partially
// initialized module" or "partially initialized module 'M' has no attribute
// 'X'"; "" for any other failure.
std::string missing_name(const EntryPrediction& e) {
  static const std::string kImport = "cannot import name '", kAttribute = "' has no attribute '";
  std::size_t at = 0;
  if (e.message.rfind(kImport, 0) == 0) at = kImport.size();
  else if (e.message.rfind("partially initialized module '", 0) == 0 && e.message.find(kAttribute) != std::string::npos)
    at = e.message.find(kAttribute) + kAttribute.size();
  else return {};
  return e.message.substr(at, e.message.find('\'', at) - at);
}

// --only-failing --allow-late-imports (issue 17 item 4, what humans do when
// nothing else works): a certain failure `cannot import name 'X' from
// partially initialized module 'M'` where M's module-level `import` S started
// the loop and M defines X further down. S moves below that definition, so the
// module that reads X back finds it. Kept when S's names are not read at
// import time above the new place (nor in a body that runs at import), and the
// simulation with the move leaves fewer certain failures and no new failing
// entry. A second failure on the same statement moves it further down.
void move_below_statements(const Analysis& a, const SimulationTables& tables, const Reachability& pins,
                           const PlanOptions& options,
                           const std::vector<char>& skipped, CutPlan& plan) {
  std::set<std::tuple<int, int, int>> tried;  // (file, import, definition)
  change_one_at_a_time(a, tables, skipped, plan, [&](const SimulationResult& r, const EntryPrediction& e, const Failing& failing) {
    if (!e.partial) return false;
    const std::string name = missing_name(e);
    if (name.empty()) return false;
    auto hop = std::find_if(e.chain.begin(), e.chain.end(), [&](const ChainHop& h) { return h.module == *e.partial; });
    const int file = a.modules[*e.partial].file;
    if (hop == e.chain.end() || file < 0) return false;
    const FileAnalysis& fa = a.files[file];
    int import = -1;
    for (std::size_t ii = 0; ii < fa.facts.imports.size() && import < 0; ++ii) {
      const ImportStatement& st = fa.facts.imports[ii];
      if (st.line == hop->line && st.context == ImportContext::ModuleLevel && !st.star && !st.is_lazy &&
          !(st.is_from && st.module == "__future__"))
        import = static_cast<int>(ii);
    }
    if (import < 0) return false;
    const ImportStatement& st = fa.facts.imports[import];
    int def = -1;
    for (std::size_t di = 0; di < fa.facts.definitions.size() && def < 0; ++di) {
      const Definition& d = fa.facts.definitions[di];
      if (d.name == name && d.line > st.line) def = static_cast<int>(di);
    }
    if (def < 0 || !tried.insert({file, import, def}).second) return false;
    const int below = fa.facts.definitions[def].end_line;
    // An earlier move of the same statement: further down only.
    auto existing = std::find_if(plan.cuts.begin(), plan.cuts.end(), [&](int i) {
      return plan.candidates[i].file == file && plan.candidates[i].import == import;
    });
    if (existing != plan.cuts.end() && (plan.candidates[*existing].strategy != Strategy::MoveBelow ||
                                        fa.facts.definitions[plan.candidates[*existing].below].end_line >= below))
      return false;
    const Definition& d = fa.facts.definitions[def];
    auto refuse = [&](std::string why) {
      auto& list = plan.not_moved_below;
      if (std::none_of(list.begin(), list.end(), [&](const auto& t) {
            return std::get<0>(t) == file && std::get<1>(t) == import;
          }))
        list.emplace_back(file, import, std::move(why));
    };
    std::string refusal;
    for (const std::string& n : st.bound_names())
      for (const NameUse& u : fa.facts.uses) {
        if (u.name() != n || !refusal.empty()) continue;
        const bool now = u.kind == UseKind::ImportTime || (u.kind == UseKind::Annotation && u.eager);
        if (now && u.line <= below)
          refusal = "'" + n + "' is read at import time at " + at(a, file, u.line) + ", above the end of '" +
                    name + "' (line " + std::to_string(below) + "), which " +
                    display_name(a.modules[e.chain.back().module]) + " reads back";
        if (u.kind == UseKind::Deferred && u.function >= 0) {
          const int fi = u.function;
          if (pins.body_runs(file, fi))
            refusal = "'" + n + "' is read in " + std::string(fa.facts.function_name(u)) + "(), which runs at import (the call at " +
                      at(a, pins.reached_from[file][fi], pins.reached_line[file][fi]) + ")";
        }
      }
    if (!refusal.empty()) {
      refuse(std::move(refusal));
      return false;
    }
    CandidateStatement c;
    if (existing != plan.cuts.end()) c = plan.candidates[*existing];
    c.file = file;
    c.import = import;
    c.targets.clear();
    for (const ImportTarget& t : fa.resolved[import].targets) c.targets.push_back(t.module);
    c.names = st.bound_names();
    c.cuttable = true;
    c.reason.clear();
    c.strategy = Strategy::MoveBelow;
    c.below = def;
    c.below_line = below;
    const double lines = 1 + std::count(st.text.begin(), st.text.end(), '\n');
    c.cost = 2 * kCostPerStatementLine * lines + 1 + (fa.source.is_package ? kCostPackageInit : 0.0);
    c.cost_terms = number(2 * kCostPerStatementLine * lines) + " (statement removed and written again) + 1 (note)";
    if (fa.source.is_package) c.cost_terms += " + " + number(kCostPackageInit) + " (package __init__)";
    c.how = "move below: '" + name + "', which " + display_name(a.modules[e.chain.back().module]) +
            " reads from " + display_name(a.modules[*e.partial]) + " while it is partially initialised, is "
            "defined at " + at(a, file, d.line) +
            "; the import goes after that definition (--allow-late-imports; linters flag it, E402)";
    // Tried in place; put back as it was when it does not help.
    std::optional<CandidateStatement> before;
    if (existing != plan.cuts.end()) {
      before = std::exchange(plan.candidates[*existing], std::move(c));
    } else {
      plan.candidates.push_back(std::move(c));
      plan.cuts.push_back(static_cast<int>(plan.candidates.size() - 1));
    }
    const BothModes with = simulate_both(a, tables, deferred_of(plan, plan.cuts));
    // Progress also: this entry now fails on a name M defines further
    // down (the next round moves the statement again).
    bool moved_on = false;
    const SimulationResult& same = r.mode == EntryMode::Normal ? with.normal : with.bare;
    for (const EntryPrediction& e2 : same.entries)
      if (e2.module == e.module && e2.fails && !e2.uncertain && e2.partial == e.partial) {
        const std::string next = missing_name(e2);
        moved_on = !next.empty() && next != name &&
                   std::any_of(fa.facts.definitions.begin(), fa.facts.definitions.end(), [&](const Definition& dd) {
                     return dd.name == next && dd.end_line > below;
                   });
      }
    if (failing.kept(with, skipped, moved_on)) {
      plan.cost = 0;
      for (int i : plan.cuts) plan.cost += plan.candidates[i].cost;
      std::erase_if(plan.not_moved_below, [&](const auto& t) {
        return std::get<0>(t) == file && std::get<1>(t) == import;
      });
      return true;
    }
    if (before) {
      plan.candidates[*existing] = std::move(*before);
    } else {
      plan.cuts.pop_back();
      plan.candidates.pop_back();
    }
    refuse("below '" + name + "' (line " + std::to_string(below) + ") the simulation still fails there, or "
           "another entry point fails");
    return false;
  });
}

// Bounds the guard's rounds (each pins at least one statement, so it ends anyway).
constexpr std::size_t kMaxGuardRounds = 20;

// The import statements of `cuts` (indexes into plan.candidates), for the simulator.
DeferredImports deferred_of(const CutPlan& plan, const std::vector<int>& cuts) {
  DeferredImports d;
  for (int c : cuts) add_cut(d, plan.candidates[c]);
  return d;
}

// Whether a fresh interpreter imports `entry` (in `mode`) when `deferred` do not run.
bool imports(const Analysis& a, const SimulationTables& tables, EntryMode mode, ModuleId entry,
             const DeferredImports& deferred) {
  return !simulate(a, tables, mode, {entry}, deferred).entries.at(0).fails;
}

// The cuts whose deferral makes `entry` fail: a small subset of `open` (the cuts not
// pinned yet, sorted) found by halving; restoring it makes the entry import again
// with the rest of `open` deferred. Restoring all of `open` gives back the tree as
// it was, where the entry imported.
std::vector<int> culprits(const Analysis& a, const SimulationTables& tables, const CutPlan& plan, EntryMode mode,
                          ModuleId entry, const std::vector<int>& open) {
  auto deferred_without = [&](const std::vector<int>& restored) {
    std::vector<int> rest;
    std::set_difference(open.begin(), open.end(), restored.begin(), restored.end(), std::back_inserter(rest));
    return deferred_of(plan, rest);
  };
  std::vector<int> cuts = open;
  while (cuts.size() > 1) {
    std::vector<int> low(cuts.begin(), cuts.begin() + static_cast<std::ptrdiff_t>(cuts.size() / 2));
    std::vector<int> high(cuts.begin() + static_cast<std::ptrdiff_t>(cuts.size() / 2), cuts.end());
    if (imports(a, tables, mode, entry, deferred_without(low))) {
      cuts = std::move(low);
    } else if (imports(a, tables, mode, entry, deferred_without(high))) {
      cuts = std::move(high);
    } else {
      break;  // it takes cuts from both halves together: keep them all
    }
  }
  return cuts;
}

// A deferred import changes the order modules load in, and can expose a loop that
// was harmless before: an entry point that imported can start to fail (SymPy's
// solvers.decompogen). Simulates both entry modes with the cuts deferred; for each
// entry that imported before and fails after, pins the cuts that cause it (with the
// failure as the reason) and solves again, until no entry point breaks.
void guard_working_imports(const Analysis& a, const SimulationTables& tables, const BothModes* given,
                           const std::function<void()>& solve, CutInstance& inst, CutPlan& plan) {
  profile_stage("plan/guard");
  if (plan.cuts.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  BothModes computed;
  if (!given) {
    computed = simulate_both(a, tables);
    given = &computed;
  }
  for (std::size_t round = 0; round < kMaxGuardRounds && !plan.cuts.empty(); ++round) {
    const auto [normal, bare] = simulate_both(a, tables, deferred_of(plan, plan.cuts));
    std::vector<int> pinned;
    for (const auto& [before, after] : {std::pair{&given->normal, &normal}, std::pair{&given->bare, &bare}}) {
      std::set<ModuleId> ok_before;
      for (const EntryPrediction& e : before->entries)
        if (!e.fails) ok_before.insert(e.module);
      for (const EntryPrediction& e : after->entries) {
        if (!e.fails || !ok_before.count(e.module)) continue;
        std::vector<int> open;  // cuts not pinned this round
        std::set_difference(plan.cuts.begin(), plan.cuts.end(), pinned.begin(), pinned.end(), std::back_inserter(open));
        // This round's pins may already cover it.
        if (open.size() < plan.cuts.size() && imports(a, tables, after->mode, e.module, deferred_of(plan, open)))
          continue;
        const std::string why = "deferring it makes " + display_name(a.modules[e.module]) + " fail to import (" +
                                std::string(to_string(after->mode)) + " entry" + (e.uncertain ? ", uncertain" : "") +
                                "): " + e.message;
        for (int c : culprits(a, tables, plan, after->mode, e.module, open)) {
          plan.candidates[c].cuttable = false;
          plan.candidates[c].reason = why;
          inst.statement_cuttable[c] = 0;
          inst.statement_cost[c] = 1.0;
          pinned.insert(std::upper_bound(pinned.begin(), pinned.end(), c), c);
          ++plan.guarded;
        }
      }
    }
    if (pinned.empty()) break;
    solve();
  }
  plan.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CutPlan plan_cuts(const Analysis& a, const CycleReport& cycles, const PlanOptions& options) {
  CutPlan plan;
  std::vector<int> comp_of(a.modules.size(), -1);
  for (std::size_t i = 0; i < cycles.components.size(); ++i)
    for (ModuleId m : cycles.components[i].modules) comp_of[m] = static_cast<int>(i);
  // --select: a component without a matching module is left out, as if acyclic.
  std::vector<char> skipped(a.modules.size(), 0);
  if (!options.select.empty()) {
    auto matches = [&](ModuleId m) {
      return std::any_of(options.select.begin(), options.select.end(), [&](const std::string& glob) {
        return ::fnmatch(glob.c_str(), a.modules[m].name.c_str(), 0) == 0;
      });
    };
    for (const auto& comp : cycles.components) {
      if (std::any_of(comp.modules.begin(), comp.modules.end(), matches)) continue;
      ++plan.skipped_by_select;
      for (ModuleId m : comp.modules) {
        comp_of[m] = -1;
        skipped[m] = 1;
      }
    }
    for (const std::string& glob : options.select) {
      bool any = false;
      for (ModuleId m = 0; m < a.modules.size() && !any; ++m)
        any = ::fnmatch(glob.c_str(), a.modules[m].name.c_str(), 0) == 0;
      if (!any) plan.unmatched_select.push_back(glob);
    }
  }

  // Every statement on an edge inside a component is a candidate.
  std::map<std::pair<int, int>, int> index;  // (file, import) -> candidate
  std::vector<std::size_t> cyclic_edges;
  for (std::size_t e = 0; e < a.graph.edges().size(); ++e) {
    const ImportEdge& edge = a.graph.edges()[e];
    if (comp_of[edge.from] < 0 || comp_of[edge.from] != comp_of[edge.to]) continue;
    cyclic_edges.push_back(e);
    for (const StatementRef& s : edge.statements) index.emplace(std::make_pair(s.file, s.import), -1);
  }
  profile_stage("plan/resolve");
  // What assessing the candidates reads. The default plan drops it before its
  // guard simulates (the guard's peak memory is the command's peak), the
  // --only-failing plan reads it again when splitting.
  struct Assessors {
    CalleeResolver resolver;
    ExternalNeeds needs;
    RuntimeAnnotations runtime;
    ReachesBack back;
    Assessors(const Analysis& a, const PlanOptions& options)
        : resolver(a.files, a.modules), needs(a, resolver), runtime(a, resolver, options.runtime), back(a) {}
  };
  auto assessors = std::make_unique<Assessors>(a, options);
  const ExternalNeeds& needs = assessors->needs;
  const RuntimeAnnotations& runtime = assessors->runtime;
  ReachesBack& back = assessors->back;  // memoizes
  // A local import in a body that runs at import time is unsafe only when the
  // body can run while a module of the cycle is partially initialised, i.e.
  // during the import of a module the cycle's modules import (directly or
  // not). A body that only an unrelated module's code calls (a test, an
  // example script that imports the package first and then computes) finds
  // the cycle's modules complete, or imports them from scratch.
  std::vector<char> downstream(a.modules.size(), 0), root_files(a.files.size(), 0);
  {
    std::vector<ModuleId> todo;
    for (ModuleId m = 0; m < a.modules.size(); ++m)
      if (comp_of[m] >= 0) {
        downstream[m] = 1;
        todo.push_back(m);
      }
    while (!todo.empty()) {
      ModuleId v = todo.back();
      todo.pop_back();
      for (std::size_t e : a.graph.out_edges(v)) {
        ModuleId w = a.graph.edges()[e].to;
        if (!downstream[w]) {
          downstream[w] = 1;
          todo.push_back(w);
        }
      }
    }
    for (ModuleId m = 0; m < a.modules.size(); ++m)
      if (downstream[m] && a.modules[m].file >= 0) root_files[static_cast<std::size_t>(a.modules[m].file)] = 1;
  }
  profile_stage("plan/reach");
  auto pins_owned = std::make_unique<Reachability>(compute_reachability(a.files, a.modules, assessors->resolver, false, &root_files));
  const Reachability& pins = *pins_owned;
  profile_stage("plan/assess");
  std::vector<std::pair<int, int>> keys;
  for (auto& [k, v] : index) keys.push_back(k);
  std::sort(keys.begin(), keys.end(), [&](auto x, auto y) {
    return std::make_tuple(a.files[x.first].source.display, a.files[x.first].facts.imports[x.second].line, x.second) <
           std::make_tuple(a.files[y.first].source.display, a.files[y.first].facts.imports[y.second].line, y.second);
  });
  // Pinned statements that an extraction could cut: assessed and offered only
  // for the loops nothing else breaks (below), as the last resort it is for a
  // reviewer (an assessment reads the defining file: not for every pin).
  std::vector<std::pair<std::size_t, CandidateStatement>> extractions;
  for (auto k : keys) {
    CandidateStatement c;
    c.file = k.first;
    c.import = k.second;
    for (const ImportTarget& t : a.files[c.file].resolved[c.import].targets) c.targets.push_back(t.module);
    assess(a, pins, needs, runtime, options, c);
    assess_bypass(a, back, c);
    assess_lazy(a, options, c);
    if (options.only_failing) assess_late_binding(a, c);
    index[k] = static_cast<int>(plan.candidates.size());
    plan.candidates.push_back(std::move(c));
  }

  CutInstance inst;
  inst.nodes = a.modules.size();
  for (const auto& c : plan.candidates) {
    inst.statement_cost.push_back(c.cuttable ? c.cost : 1.0);
    inst.statement_cuttable.push_back(c.cuttable);
  }
  for (std::size_t e : cyclic_edges) {
    const ImportEdge& edge = a.graph.edges()[e];
    CutInstance::Edge ie;
    ie.from = edge.from;
    ie.to = edge.to;
    for (const StatementRef& s : edge.statements) ie.statements.push_back(static_cast<std::uint32_t>(index[{s.file, s.import}]));
    std::sort(ie.statements.begin(), ie.statements.end());
    ie.statements.erase(std::unique(ie.statements.begin(), ie.statements.end()), ie.statements.end());
    inst.edges.push_back(std::move(ie));
  }
  // The (from, to) module pairs of `loops`.
  using ModuleEdges = std::set<std::pair<ModuleId, ModuleId>>;
  auto edges_of = [](const std::vector<std::vector<ModuleId>>& loops) {
    ModuleEdges out;
    for (const auto& loop : loops)
      for (std::size_t i = 0; i < loop.size(); ++i) out.insert({loop[i], loop[(i + 1) % loop.size()]});
    return out;
  };
  // Whether the statement makes one of `edges`.
  auto makes_edge = [&](const CandidateStatement& c, const ModuleEdges& edges) {
    const ModuleId from = a.files[c.file].module;
    return std::any_of(c.targets.begin(), c.targets.end(), [&](ModuleId t) { return edges.count({from, t}) > 0; });
  };
  // Extraction, for the loops nothing else breaks: the statements on their
  // edges that an extraction could cut become cuttable (at their cost), and
  // the caller solves again. False when there is none to offer.
  auto offer_extractions = [&]() -> bool {
    if (plan.unbreakable_loops.empty() || !options.extract) return false;
    const ModuleEdges on_loops = edges_of(plan.unbreakable_loops);
    extractions.clear();
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
      CandidateStatement& c = plan.candidates[i];
      if (c.cuttable || !makes_edge(c, on_loops)) continue;
      std::string refusal;
      if (auto e = extraction_of(a, back, c, &refusal)) extractions.emplace_back(i, std::move(*e));
      else if (!refusal.empty()) c.reason += "; no extraction: " + refusal;
    }
    for (const auto& [i, e] : extractions) {
      plan.candidates[i] = e;
      inst.statement_cost[i] = e.cost;
      inst.statement_cuttable[i] = true;
    }
    return !extractions.empty();
  };
  // The plan's cuts remove edges that made a bypass unsafe (the defining
  // module reached the importer back through a statement the plan bypasses,
  // or through the readers of extracted definitions): the pinned statements of
  // loops still unbreakable are assessed again against the graph without the
  // plan's cut edges, and a bypass that is now safe is added to the cuts. Not
  // to the solver's instance: it is safe only with the other cuts made, so
  // each solve (the guard's too) is followed by this pass again, from the
  // statements as they were pinned; one the guard pins stays pinned.
  std::map<std::size_t, CandidateStatement> pinned_before;  // made cuttable by the last pass: as they were pinned
  std::set<std::size_t> guard_pinned;  // made cuttable by a pass, pinned by the guard since
  auto bypass_after_cuts = [&] {
    for (auto& [i, c] : pinned_before) {
      if (plan.candidates[i].cuttable) plan.candidates[i] = std::move(c);  // assessed again below
      else guard_pinned.insert(i);
    }
    pinned_before.clear();
    if (plan.unbreakable_loops.empty()) return;
    std::set<int> cut(plan.cuts.begin(), plan.cuts.end());
    ReachesBack after(a, [&](const ImportEdge& e) {
      for (const StatementRef& st : e.statements) {
        auto it = index.find({st.file, st.import});
        if (it == index.end() || !cut.count(it->second) || keeps_edge(plan.candidates[it->second].strategy))
          return false;
      }
      return true;
    });
    const ModuleEdges on_loops = edges_of(plan.unbreakable_loops);
    bool added = false;
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
      CandidateStatement& c = plan.candidates[i];
      if (c.cuttable || guard_pinned.count(i) || !makes_edge(c, on_loops)) continue;
      CandidateStatement t = c;
      t.reason = t.reason.substr(0, t.reason.find("; no "));
      assess_bypass(a, after, t);
      if (!t.cuttable) continue;
      t.how += extractions.empty() ? " (once the cuts above are made)" : " (once the extractions above are made)";
      pinned_before.emplace(i, c);
      c = std::move(t);
      plan.cuts.push_back(static_cast<int>(i));
      plan.cost += c.cost;
      added = true;
    }
    if (!added) return;
    std::sort(plan.cuts.begin(), plan.cuts.end());
    plan.optimal = false;
    std::erase_if(plan.unbreakable_loops, [&](const std::vector<ModuleId>& loop) {
      const ModuleEdges edges = edges_of({loop});
      return std::any_of(plan.cuts.begin(), plan.cuts.end(),
                         [&](int i) { return makes_edge(plan.candidates[i], edges); });
    });
  };
  profile_stage("plan/solve");
  // One resolver and event cache for every simulation below: the guard's rounds
  // and single-entry checks, --only-failing's trials (on the 50,000-file
  // benchmark tree, building the resolver takes seconds).
  std::optional<SimulationTables> tables;  // built when something simulates
  if (options.only_failing) {
    tables.emplace(a);
    // The guard (below) holds here too: a cut set that fixes the failing entry
    // points can make others fail (on SymPy the first plan made all 1,472
    // normal entries fail). Each re-solve starts from the candidates as
    // assessed, keeping only the guard's pins.
    std::vector<CandidateStatement> assessed = plan.candidates;
    auto solve = [&] {
      for (std::size_t i = 0; i < plan.candidates.size(); ++i)
        if (plan.candidates[i].cuttable) plan.candidates[i] = assessed[i];
      plan.cuts.clear();
      plan_only_failing(a, *tables, inst, options, skipped, plan);
    };
    auto run = [&] {
      solve();
      if (options.guard) guard_working_imports(a, *tables, options.before, solve, inst, plan);
      const std::vector<int> before_split = plan.cuts;
      split_failing_statements(a, *tables, pins, needs, runtime, options, skipped, plan);
      if (options.allow_late_imports) move_below_statements(a, *tables, pins, options, skipped, plan);
      if (plan.cuts != before_split || options.allow_late_imports) {
        // The counts, and the unbreakable loops, after the splits.
        const BothModes both = simulate_both(a, *tables, deferred_of(plan, plan.cuts));
        FailingCounts failing, uncertain;
        std::set<std::vector<ModuleId>> still;
        for (const SimulationResult* r : {&both.normal, &both.bare})
          for (const EntryPrediction& e : r->entries) {
            if (!e.fails || !e.circular) continue;
            const ModuleId at_fault = e.partial ? *e.partial : e.chain.empty() ? e.module : e.chain.back().module;
            if (skipped[at_fault]) continue;
            (r->mode == EntryMode::Normal ? failing.normal : failing.bare)++;
            if (e.uncertain) (r->mode == EntryMode::Normal ? uncertain.normal : uncertain.bare)++;
            else still.insert(failure_loop(e));
          }
        plan.failing_after = failing;
        plan.uncertain_after = uncertain;
        std::erase_if(plan.unbreakable_loops, [&](const std::vector<ModuleId>& l) { return !still.count(l); });
        plan.optimal = false;
      }
    };
    run();
    // Failing loops that no deferral, split, late binding or move below fixes:
    // extraction is offered for their statements, and the whole plan is made again.
    if (offer_extractions()) {
      for (const auto& [i, e] : extractions) assessed[i] = e;
      plan.not_moved_below.clear();
      run();
    }
  } else {
    CutOptions co;
    co.time_limit_s = options.time_limit_s;
    co.exact = options.exact;
    auto solve = [&] {
      CutSolution sol = solve_cuts(inst, co);
      plan.cuts.assign(sol.cut_statements.begin(), sol.cut_statements.end());
      std::sort(plan.cuts.begin(), plan.cuts.end());
      plan.cost = sol.cost;
      plan.lower_bound = sol.lower_bound;
      plan.optimal = sol.optimal;
      plan.gap = sol.gap();
      plan.method = sol.method;
      plan.seconds += sol.seconds;
      plan.unbreakable_loops.clear();
      for (const auto& loop : sol.unbreakable_cycles) plan.unbreakable_loops.emplace_back(loop.begin(), loop.end());
    };
    solve();
    if (offer_extractions()) solve();
    bypass_after_cuts();
    pins_owned.reset();
    assessors.reset();
    if (options.release_uses) {
      std::vector<char> keep(a.files.size(), 0);
      for (const CandidateStatement& c : plan.candidates) keep[c.file] = 1;
      options.release_uses(keep);
    }
    auto solve_and_bypass = [&] {
      solve();
      bypass_after_cuts();
    };
    if (options.guard && !plan.cuts.empty())
      guard_working_imports(a, tables.emplace(a), options.before, solve_and_bypass, inst, plan);
  }

  // What is left: the graph without the edges whose statements are all cut.
  std::set<int> cut(plan.cuts.begin(), plan.cuts.end());
  ImportGraph rest(a.modules.size());
  for (const ImportEdge& edge : a.graph.edges()) {
    bool removed = comp_of[edge.from] >= 0 && comp_of[edge.from] == comp_of[edge.to];
    for (const StatementRef& s : edge.statements) {
      auto it = index.find({s.file, s.import});
      if (it == index.end() || !cut.count(it->second)) removed = false;
    }
    if (!removed)
      for (const StatementRef& s : edge.statements) rest.add(edge.from, edge.to, s);
  }
  rest.finish();
  for (const auto& comp : cyclic_components(rest))
    if (!skipped[comp.front()]) ++plan.remaining_cycles;
  plan.target_minor = options.target_minor;
  if (options.prefer_lazy && options.target_minor >= 15) plan.hoists = plan_lazy_hoists(a, &plan.kept_local);
  return plan;
}

std::vector<std::string> lazy_statements(const FileAnalysis& fa, const CandidateStatement& c) {
  const ImportStatement& st = fa.facts.imports[c.import];
  if (!c.split) return {"lazy " + first_line(st.text)};
  std::string items;
  for (const ImportAlias& al : st.names)
    if (std::count(c.names.begin(), c.names.end(), al.bound_name(true)))
      items += (items.empty() ? "" : ", ") + al.name + (al.asname.empty() ? "" : " as " + al.asname);
  return {"lazy from " + std::string(st.level, '.') + st.module + " import " + items};
}

std::string WrittenImport::text() const { return head + join(names, ", "); }

std::vector<WrittenImport> bypass_imports(const CandidateStatement& c) {
  std::vector<WrittenImport> out;
  std::vector<std::string> froms;  // module per entry of `out`, "" for module imports
  for (const BypassName& b : c.bypass) {
    if (b.name.empty()) {
      out.push_back({"import " + b.module + (b.bound == b.module ? "" : " as " + b.bound), {}, {b.bound}});
      froms.emplace_back();
      continue;
    }
    std::string item = b.name == b.bound ? b.name : b.name + " as " + b.bound;
    auto it = std::find(froms.begin(), froms.end(), b.module);
    if (it == froms.end()) {
      out.push_back({"from " + b.module + " import ", {std::move(item)}, {b.bound}});
      froms.push_back(b.module);
    } else {
      WrittenImport& w = out[static_cast<std::size_t>(it - froms.begin())];
      w.names.push_back(std::move(item));
      w.bound.push_back(b.bound);
    }
  }
  return out;
}

std::vector<std::string> bypass_statements(const CandidateStatement& c) {
  std::vector<std::string> out;
  for (const WrittenImport& w : bypass_imports(c)) out.push_back(w.text());
  return out;
}

std::vector<std::vector<ModuleId>> loops_through(const Analysis& a, const CycleReport& cycles,
                                                 const CandidateStatement& cut) {
  std::vector<std::vector<ModuleId>> out;
  for (const auto& comp : cycles.components) {
    for (const auto& loop : comp.loops) {
      for (std::size_t h = 0; h < loop.hops.size(); ++h) {
        const ImportEdge* e = a.graph.find(loop.hops[h].from, loop.hops[h].to);
        if (!e) continue;
        bool hit = std::any_of(e->statements.begin(), e->statements.end(),
                               [&](const StatementRef& s) { return s.file == cut.file && s.import == cut.import; });
        if (hit) {
          out.push_back(loop.modules);
          break;
        }
      }
    }
  }
  if (!out.empty()) return out;
  // The listed loops are capped (--max-loops) and may all miss this statement:
  // name the shortest loop through one of its edges instead.
  // A statement in a function is charged to the module whose import-time code
  // calls it, so its edges may leave another module of the component.
  std::vector<ModuleId> best;
  for (const auto& comp : cycles.components)
    for (ModuleId from : comp.modules)
      for (std::size_t e : a.graph.out_edges(from)) {
        const auto& st = a.graph.edges()[e].statements;
        if (std::none_of(st.begin(), st.end(),
                         [&](const StatementRef& s) { return s.file == cut.file && s.import == cut.import; }))
          continue;
        auto loop = shortest_loop_through(a.graph, e, comp.modules);
        if (!loop.empty() && (best.empty() || loop.size() < best.size())) best = std::move(loop);
      }
  if (!best.empty()) out.push_back(std::move(best));
  return out;
}

bool keeps_edge(Strategy s) { return s == Strategy::LateBind || s == Strategy::MoveBelow; }

std::vector<std::string> loops_broken_by(const Analysis& a, const CycleReport& cycles, const CandidateStatement& cut) {
  std::vector<std::string> out;
  for (const auto& loop : loops_through(a, cycles, cut)) out.push_back(loop_text(a, loop));
  return out;
}

nlohmann::json plan_json(const Analysis& a, const CycleReport& cycles, const CutPlan& plan) {
  using nlohmann::json;
  json cuts = json::array(), uncuttable = json::array();
  for (int i : plan.cuts) {
    const CandidateStatement& c = plan.candidates[i];
    const FileAnalysis& fa = a.files[c.file];
    const ImportStatement& st = fa.facts.imports[c.import];
    json targets = json::array();
    for (ModuleId m : c.targets) targets.push_back(a.modules[m].name);
    json cut = {{"importer", a.modules[fa.module].name},
                {"file", fa.source.display},
                {"line", st.line},
                {"statement", first_line(st.text)},
                {"strategy", to_string(c.strategy)},
                {"targets", targets},
                {"names", c.names},
                {"moved_to", c.functions},
                {"type_checking", c.type_checking},
                {"cost", c.cost},
                {"cost_terms", c.cost_terms},
                {"breaks", loops_broken_by(a, cycles, c)},
                {"edge_stays", keeps_edge(c.strategy)}};
    if (c.strategy == Strategy::Bypass) {
      cut["rewritten_to"] = bypass_statements(c);
      cut["how"] = c.how;
    } else if (c.strategy == Strategy::LateBind) {
      cut["rewritten_to"] = json::array({c.late.statement});
      cut["how"] = c.how;
    } else if (c.strategy == Strategy::Lazy) {
      cut["rewritten_to"] = lazy_statements(fa, c);
      cut["how"] = c.how;
    } else if (c.strategy == Strategy::MoveBelow) {
      cut["moved_below_line"] = c.below_line;
      cut["how"] = c.how;
    } else if (c.strategy == Strategy::Extract) {
      cut["rewritten_to"] = bypass_statements(c);
      cut["how"] = c.how;
      cut["new_module"] = {{"module", c.extract.module},
                           {"file", c.extract.display},
                           {"from", a.files[c.extract.file].source.display},
                           {"names", c.extract.names},
                           {"lines", c.extract.lines}};
    } else if (c.split) {
      cut["how"] = c.how;
    }
    cuts.push_back(std::move(cut));
  }
  for (const auto& c : plan.candidates) {
    if (c.cuttable) continue;
    const FileAnalysis& fa = a.files[c.file];
    const ImportStatement& st = fa.facts.imports[c.import];
    uncuttable.push_back({{"file", fa.source.display}, {"line", st.line}, {"statement", first_line(st.text)},
                          {"reason", c.reason}});
  }
  json unbreakable = json::array();
  for (const auto& loop : plan.unbreakable_loops) {
    json names = json::array();
    for (ModuleId m : loop) names.push_back(a.modules[m].name);
    unbreakable.push_back(names);
  }
  json summary = {{"mode", plan.only_failing ? "only_failing" : "acyclic"},
                  {"cost", plan.cost},
                  {"lower_bound", plan.lower_bound},
                  {"optimal", plan.optimal},
                  {"gap", plan.gap},
                  {"method", plan.method},
                  {"seconds", plan.seconds},
                  {"remaining_cycles", plan.remaining_cycles},
                  {"skipped_by_select", plan.skipped_by_select},
                  {"unmatched_select", plan.unmatched_select},
                  {"unbreakable_loops", unbreakable},
                  {"guarded", plan.guarded}};
  if (plan.only_failing) {
    auto counts = [](const FailingCounts& c) { return json{{"normal", c.normal}, {"bare", c.bare}}; };
    summary["failing_before"] = counts(plan.failing_before);
    summary["failing_after"] = counts(plan.failing_after);
    summary["uncertain_failing_before"] = counts(plan.uncertain_before);
    summary["uncertain_failing_after"] = counts(plan.uncertain_after);
    summary["rounds"] = plan.rounds;
    summary["failure_loops"] = plan.failure_loops;
    summary["converged"] = plan.converged;
  }
  json out = {{"cuts", cuts}, {"uncuttable", uncuttable}, {"plan", summary}};
  if (!plan.not_moved_below.empty()) {
    json list = json::array();
    for (const auto& [file, import, why] : plan.not_moved_below)
      list.push_back({{"file", a.files[file].source.display},
                      {"line", a.files[file].facts.imports[import].line},
                      {"reason", why}});
    out["not_moved_below"] = list;
  }
  if (!plan.hoists.empty() || !plan.kept_local.empty()) {
    json hoists = json::array(), kept = json::array();
    for (const LazyHoist& h : plan.hoists) {
      const FileAnalysis& fa = a.files[h.file];
      json lines = json::array();
      for (int i : h.imports) lines.push_back(fa.facts.imports[i].line);
      json loop = json::array();
      for (ModuleId m : h.loop) loop.push_back(a.modules[m].name);
      hoists.push_back({{"file", fa.source.display}, {"lines", lines}, {"functions", h.functions},
                        {"statement", h.statement}, {"loop", loop}});
    }
    for (const KeptLocal& k : plan.kept_local) {
      const FileAnalysis& fa = a.files[k.file];
      kept.push_back({{"file", fa.source.display}, {"line", fa.facts.imports[k.import].line},
                      {"statement", first_line(fa.facts.imports[k.import].text)}, {"reason", k.reason}});
    }
    out["lazy_hoists"] = hoists;
    out["kept_local"] = kept;
  }
  return out;
}

void print_plan(std::ostream& out, const Analysis& a, const CycleReport& cycles, const CutPlan& plan) {
  auto count = [&](Strategy s) {
    return static_cast<std::size_t>(
        std::count_if(plan.cuts.begin(), plan.cuts.end(), [&](int i) { return plan.candidates[i].strategy == s; }));
  };
  const std::size_t bypassed = count(Strategy::Bypass), late = count(Strategy::LateBind), lazy = count(Strategy::Lazy),
                    below = count(Strategy::MoveBelow), extracted = count(Strategy::Extract);
  const bool mixed = bypassed || late || lazy || below || extracted;
  out << "cyclefix plan" << (plan.only_failing ? " (only failing entry points)" : "") << ": "
      << cycles.components.size() << " import cycle" << (cycles.components.size() == 1 ? "" : "s")
      << (plan.skipped_by_select ? " (" + std::to_string(plan.skipped_by_select) + " skipped by --select)" : "")
      << ", " << plan.candidates.size()
      << " statements on them, " << plan.cuts.size() << " to " << (mixed ? "change" : "defer")
      << (mixed ? " (" + std::to_string(plan.cuts.size() - bypassed - late - lazy - below - extracted) + " deferred" +
                      (bypassed ? ", " + std::to_string(bypassed) + " imported from where the names are defined" : "") +
                      (late ? ", " + std::to_string(late) + " late-bound" : "") +
                      (lazy ? ", " + std::to_string(lazy) + " made lazy" : "") +
                      (below ? ", " + std::to_string(below) + " moved below a definition" : "") +
                      (extracted ? ", " + std::to_string(extracted) + " served by a new module" : "") + ")"
                : std::string())
      << "; cost " << plan.cost << " (lower bound "
      << plan.lower_bound << (plan.optimal ? ", optimal" : "") << ", " << plan.method << ", " << plan.seconds
      << " s)\n";
  if (plan.only_failing) {
    out << "failing entry points: normal " << plan.failing_before.normal << " -> " << plan.failing_after.normal
        << ", bare " << plan.failing_before.bare << " -> " << plan.failing_after.bare;
    const FailingCounts& u = plan.uncertain_before;
    const FailingCounts& v = plan.uncertain_after;
    if (u.normal || u.bare || v.normal || v.bare)
      out << " (uncertain, not driving cuts: normal " << u.normal << " -> " << v.normal << ", bare " << u.bare
          << " -> " << v.bare << ")";
    out << "; " << plan.failure_loops << " failing loop(s) to break, " << plan.rounds << " simulation round(s)"
        << (plan.converged ? "" : ", stopped before every failure was fixed") << "\n";
  }
  if (plan.only_failing || !plan.cuts.empty()) out << simulation_assumptions(a);  // the guard simulated
  for (const auto& glob : plan.unmatched_select) out << "--select '" << glob << "' matches no module\n";
  if (plan.guarded)
    out << plan.guarded << " statement(s) kept at module level: deferring them would break an entry point that "
        << "imports today (see below)\n";
  for (int i : plan.cuts) {
    const CandidateStatement& c = plan.candidates[i];
    const FileAnalysis& fa = a.files[c.file];
    const ImportStatement& st = fa.facts.imports[c.import];
    out << "\n" << to_string(c.strategy) << " " << fa.source.display << ":" << st.line
        << ": " << first_line(st.text) << "  (cost " << c.cost << ")\n";
    if (c.strategy == Strategy::Bypass) {
      for (const auto& line : bypass_statements(c)) out << "  becomes: " << line << "\n";
      out << "  " << c.how << "\n";
    } else if (c.strategy == Strategy::LateBind) {
      out << "  becomes: " << c.late.statement << "\n  " << c.how << "\n";
    } else if (c.strategy == Strategy::Lazy) {
      for (const auto& line : lazy_statements(fa, c)) out << "  becomes: " << line << "\n";
      if (!c.split) out << "  " << c.how << "\n";
    } else if (c.strategy == Strategy::MoveBelow) {
      out << "  goes below line " << c.below_line << "\n  " << c.how << "\n";
    } else if (c.strategy == Strategy::Extract) {
      for (const auto& line : bypass_statements(c)) out << "  becomes: " << line << "\n";
      out << "  new module " << c.extract.display << ": " << c.extract.lines << " line(s) of "
          << a.files[c.extract.file].source.display << "\n  " << c.how << "\n";
    }
    if (c.split) out << "  " << c.how << "\n";
    if (c.strategy == Strategy::Defer && !c.lazy_refusal.empty() && plan.target_minor >= 15)
      out << "  no lazy: " << c.lazy_refusal << "\n";
    if (c.strategy == Strategy::Defer && !c.late.refusal.empty()) out << "  no late binding: " << c.late.refusal << "\n";
    if (c.strategy == Strategy::Defer && !c.bypass_refusal.empty()) out << "  no bypass: " << c.bypass_refusal << "\n";
    if (!c.functions.empty()) {
      out << "  into:";
      for (const auto& f : c.functions) out << " " << f << "()";
      out << "\n";
    }
    if (!c.type_checking.empty()) {
      out << "  under TYPE_CHECKING:";
      for (const auto& n : c.type_checking) out << " " << n;
      out << "\n";
    }
    // Late binding and a move below keep the edge: the loop is still there,
    // it just no longer fails.
    const char* verb = keeps_edge(c.strategy) ? "  fixes the failure on " : "  breaks ";
    const char* tail = keeps_edge(c.strategy) ? " (the import stays on it)" : "";
    for (const auto& l : loops_broken_by(a, cycles, c)) out << verb << l << tail << "\n";
  }
  bool header = false;
  for (const auto& c : plan.candidates) {
    if (c.cuttable) continue;
    if (!header) out << "\nstatements that cannot be deferred:\n";
    header = true;
    const ImportStatement& st = a.files[c.file].facts.imports[c.import];
    out << "  " << a.files[c.file].source.display << ":" << st.line << ": " << first_line(st.text) << "\n      "
        << c.reason << "\n";
    if (const std::string how = changed_instead(plan, plan.cuts, c); !how.empty())
      out << "      changed instead: " << how << " (above)\n";
  }
  if (!plan.not_moved_below.empty()) out << "\nnot moved below a definition (--allow-late-imports):\n";
  for (const auto& [file, import, why] : plan.not_moved_below) {
    const ImportStatement& st = a.files[file].facts.imports[import];
    out << "  " << a.files[file].source.display << ":" << st.line << ": " << first_line(st.text) << "\n      " << why
        << "\n";
  }
  for (const auto& loop : plan.unbreakable_loops)
    out << "\nunbreakable: " << loop_text(a, loop) << " (every statement on it is pinned)\n";
  for (const LazyHoist& h : plan.hoists) {
    const FileAnalysis& fa = a.files[h.file];
    out << "\nlazy (--prefer-lazy) " << fa.source.display << ":";
    for (std::size_t i = 0; i < h.imports.size(); ++i)
      out << (i ? "," : "") << fa.facts.imports[h.imports[i]].line;
    out << ": " << h.imports.size() << " local import(s) in";
    for (const auto& f : h.functions) out << " " << f << "()";
    out << "\n  becomes, at module level: " << h.statement << "\n";
    if (!h.loop.empty()) out << "  an eager import would close " << loop_text(a, h.loop) << "\n";
  }
  bool kept_header = false;
  for (const KeptLocal& k : plan.kept_local) {
    if (!kept_header) out << "\nlocal imports kept local (--prefer-lazy):\n";
    kept_header = true;
    const FileAnalysis& fa = a.files[k.file];
    const ImportStatement& st = fa.facts.imports[k.import];
    out << "  " << fa.source.display << ":" << st.line << ": " << first_line(st.text) << "\n      " << k.reason << "\n";
  }
  if (plan.remaining_cycles)
    out << "\n" << plan.remaining_cycles << " import cycle(s) remain after the plan"
        << (plan.only_failing ? " (left alone: --only-failing)" : "") << "\n";
}

}  // namespace cyclefix

