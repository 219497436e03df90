// Module index and import resolution (design.md §3-4). Turns one import
// statement of one module into the first-party modules it runs or takes names
// from. Plain names in, module ids out: no syntax trees, no file system.
//
// Rules, in Python's words:
// - `import a.b.c` runs a, a.b, a.b.c in that order. The importer itself and its
//   ancestor packages are already in sys.modules when its body runs, so they run
//   nothing and are not targets.
// - `from X import n` runs the packages on X's path and X (minus the importer and
//   its ancestors), then binds n: a submodule X.n when one exists (Submodule),
//   else a name bound in X's body (NameFrom). A name is needed even from an
//   ancestor, so NameFrom is kept for ancestors; a module taking a name from
//   itself is not an edge.
// - Namespace packages (PEP 420) have no body: nothing runs and no name lives in
//   them, so they are never targets. A name that is neither a submodule nor in a
//   body cannot come from a namespace package and is reported as unresolved.

#include "module_index.hpp"

#include <cstdio>
#include <cstdlib>

namespace cyclefix {

namespace {

std::string_view top_level_of(std::string_view name) {
  return name.substr(0, name.find('.'));
}

std::string_view parent_of(std::string_view name) {
  auto dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

// Collects targets with the dedup rule: one target per module, the first reason
// wins, except that NameFrom upgrades an earlier Executes (a needed name is the
// stronger requirement). Position (execution order) stays that of the first.
void add_target(std::vector<ImportTarget>& targets, ImportTarget t) {
  for (auto& existing : targets) {
    if (existing.module != t.module) continue;
    if (existing.reason == EdgeReason::Executes && t.reason == EdgeReason::NameFrom) {
      existing.reason = t.reason;
      existing.name = std::move(t.name);
    }
    return;
  }
  targets.push_back(std::move(t));
}

void add_unresolved(std::vector<std::string>& unresolved, std::string name) {
  for (const auto& u : unresolved)
    if (u == name) return;
  unresolved.push_back(std::move(name));
}

}  // namespace

std::string_view to_string(EdgeReason r) {
  switch (r) {
    case EdgeReason::Executes: return "executes";
    case EdgeReason::NameFrom: return "name";
    case EdgeReason::Submodule: return "submodule";
  }
  return "?";
}

bool is_ancestor(std::string_view ancestor, std::string_view module) {
  return !ancestor.empty() && module.size() > ancestor.size() && module.starts_with(ancestor) &&
         module[ancestor.size()] == '.';
}

ModuleId ModuleIndex::add(ModuleInfo info) {
  auto id = static_cast<ModuleId>(modules_.size());
  auto [it, inserted] = by_name_.emplace(info.name, id);
  if (!inserted) {
    std::fprintf(stderr, "%s:%d: internal error: module '%s' added twice to the index\n", __FILE__,
                 __LINE__, info.name.c_str());
    std::abort();
  }
  ++top_levels_[std::string(top_level_of(info.name))];
  modules_.push_back(std::move(info));
  return id;
}

std::optional<ModuleId> ModuleIndex::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

bool ModuleIndex::has_top_level(std::string_view top) const {
  return top_levels_.count(std::string(top)) != 0;
}

// Python's rule (importlib._bootstrap._resolve_name): the package is the module
// itself for a package, else its parent; `level` dots keep `level - 1` fewer
// components of it, and running out is "beyond top-level package".
std::optional<std::string> ModuleIndex::relative_base(ModuleId importer, int level) const {
  if (level < 1 || importer >= modules_.size()) return std::nullopt;
  const ModuleInfo& m = modules_[importer];
  std::string_view base = m.is_package ? std::string_view(m.name) : parent_of(m.name);
  for (int i = 1; i < level && !base.empty(); ++i) base = parent_of(base);
  if (base.empty()) return std::nullopt;
  return std::string(base);
}

ResolvedImport ModuleIndex::resolve(ModuleId importer, const ImportStatement& stmt) const {
  ResolvedImport out;
  const std::string& self = modules_.at(importer).name;
  auto already_loading = [&](std::string_view name) {
    return name == self || is_ancestor(name, self);
  };

  // Runs every package on `dotted`'s path and `dotted` itself. Returns false
  // (after recording `dotted` as unresolved) when some prefix is not a module.
  auto execute_path = [&](std::string_view dotted) {
    for (std::size_t end = 0; end != std::string_view::npos;) {
      end = dotted.find('.', end + 1);
      std::string_view prefix = dotted.substr(0, end);
      auto id = find(prefix);
      if (!id) {
        add_unresolved(out.unresolved, std::string(dotted));
        return false;
      }
      if (already_loading(prefix) || modules_[*id].is_namespace) continue;
      add_target(out.targets, {*id, EdgeReason::Executes, {}});
    }
    return true;
  };

  if (!stmt.is_from) {
    // `import a.b.c [as d], e`: each alias is a dotted module name.
    for (const auto& alias : stmt.names) {
      if (out.absolute_module.empty()) out.absolute_module = alias.name;
      if (alias.name.empty() || !has_top_level(top_level_of(alias.name))) continue;
      out.first_party = true;
      execute_path(alias.name);
    }
    return out;
  }

  std::string from = stmt.module;
  if (stmt.level > 0) {
    out.first_party = true;  // relative imports stay inside the importer's package
    auto base = relative_base(importer, stmt.level);
    if (!base) {
      out.error = "attempted relative import beyond top-level package";
      add_unresolved(out.unresolved, std::string(static_cast<std::size_t>(stmt.level), '.') + stmt.module);
      return out;
    }
    from = stmt.module.empty() ? *base : *base + "." + stmt.module;
  }
  out.absolute_module = from;
  if (from.empty() || !has_top_level(top_level_of(from))) return out;
  out.first_party = true;
  if (!execute_path(from)) return out;

  const ModuleId from_id = *find(from);
  // An extension module's names exist once it is imported; it has no submodules.
  if (modules_[from_id].is_extension) return out;
  const bool from_has_body = !modules_[from_id].is_namespace;
  const bool from_is_self = from_id == importer;
  if (stmt.star) {
    if (from_has_body && !from_is_self) add_target(out.targets, {from_id, EdgeReason::NameFrom, "*"});
    return out;
  }
  for (const auto& alias : stmt.names) {
    std::string sub = from + "." + alias.name;
    if (auto sub_id = find(sub)) {
      // An ancestor (or the importer itself) as submodule is already in
      // sys.modules: Python binds it from there without running anything.
      if (!already_loading(sub) && !modules_[*sub_id].is_namespace)
        add_target(out.targets, {*sub_id, EdgeReason::Submodule, alias.name});
    } else if (!from_has_body) {
      add_unresolved(out.unresolved, std::move(sub));
    } else if (!from_is_self) {
      add_target(out.targets, {from_id, EdgeReason::NameFrom, alias.name});
    }
  }
  return out;
}

}  // namespace cyclefix
