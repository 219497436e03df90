#include "reexports.hpp"

#include <algorithm>

namespace cyclefix {

namespace {

std::string_view top_level(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }

// Whether first-party module `m` binds `name` for a star import: listed in its
// literal __all__, or (without one) bound at module level and not private.
bool exports(const Analysis& a, ModuleId m, const std::string& name) {
  const int file = a.modules[m].file;
  if (file < 0 || !a.files[file].analysed) return false;
  const ModuleFacts& f = a.files[file].facts;
  if (!f.star_candidate(name)) return false;
  if (f.dunder_all) return true;
  return std::any_of(f.definitions.begin(), f.definitions.end(), [&](const Definition& d) { return d.name == name; });
}

}  // namespace

OriginChain origin_chain(const Analysis& a, const std::string& module, const std::string& name) {
  OriginChain out;
  out.hops.push_back({module, name, true, false});
  std::string cur = module, n = name;
  for (int depth = 0; depth < 16; ++depth) {
    auto id = a.modules.find(cur);
    const int file = id ? a.modules[*id].file : -1;
    if (file < 0 || !a.files[file].analysed) {
      out.stop = cur + " has no source here";
      return out;
    }
    const ModuleFacts& f = a.files[file].facts;
    const std::string where = a.files[file].source.display;
    for (const FunctionInfo& fn : f.functions) {
      if (std::count(fn.globals.begin(), fn.globals.end(), n)) {
        out.stop = "'" + n + "' is re-bound by " + fn.qualified_name + "() (global) in " + where;
        return out;
      }
    }
    std::vector<const Definition*> defs;
    for (const Definition& d : f.definitions)
      if (d.name == n) defs.push_back(&d);
    if (defs.size() > 1) {
      out.stop = "'" + n + "' is bound more than once in " + where + " (lines " + std::to_string(defs[0]->line) +
                 " and " + std::to_string(defs[1]->line) + ")";
      return out;
    }
    // Star imports at module level, in source order.
    std::vector<std::size_t> stars;
    for (std::size_t i = 0; i < f.imports.size(); ++i)
      if (f.imports[i].star && f.imports[i].context == ImportContext::ModuleLevel) stars.push_back(i);
    if (defs.empty()) {
      // A star re-export: the last star import of a first-party module that exports the name.
      const ImportStatement* via = nullptr;
      std::string from;
      for (std::size_t i : stars) {
        const ResolvedImport& r = a.files[file].resolved[i];
        auto m = r.first_party ? a.modules.find(r.absolute_module) : std::nullopt;
        if (m && exports(a, *m, n)) {
          via = &f.imports[i];
          from = r.absolute_module;
        } else if (!r.first_party) {
          via = nullptr;  // another package's star import may bind it, too
        }
      }
      if (!via) {
        out.stop = "'" + n + "' is not bound at module level in " + where;
        return out;
      }
      out.hops.push_back({from, n, true, false});
      cur = from;
      continue;
    }
    const Definition& d = *defs.front();
    if (d.kind != Definition::Kind::Import) return out;  // the definer
    for (std::size_t i : stars) {
      if (f.imports[i].line > d.line) {
        out.stop = "a star import after it may re-bind '" + n + "' in " + where + ":" + std::to_string(f.imports[i].line);
        return out;
      }
    }
    auto it = std::find_if(f.imports.begin(), f.imports.end(),
                           [&](const ImportStatement& st) { return st.stmt_begin == d.begin; });
    if (it == f.imports.end()) return out;
    const ImportStatement& st = *it;
    const ResolvedImport& r = a.files[file].resolved[static_cast<std::size_t>(it - f.imports.begin())];
    if (st.context != ImportContext::ModuleLevel) {
      out.stop = "'" + n + "' is imported in a " + std::string(to_string(st.context)) + " block at " + where + ":" +
                 std::to_string(st.line);
      return out;
    }
    auto alias = std::find_if(st.names.begin(), st.names.end(),
                              [&](const ImportAlias& al) { return al.bound_name(st.is_from) == n; });
    if (alias == st.names.end()) return out;
    if (!st.is_from) {  // `import a.b as n` (or `import a`): the module itself
      std::string mod = alias->asname.empty() ? std::string(top_level(alias->name)) : alias->name;
      out.hops.push_back({mod, "", a.modules.has_top_level(top_level(mod)), true});
      return out;
    }
    if (r.absolute_module.empty()) {
      out.stop = "'" + n + "' comes from an import that does not resolve, in " + where;
      return out;
    }
    const bool fp = a.modules.has_top_level(top_level(r.absolute_module));
    const bool sub = fp && a.modules.find(r.absolute_module + "." + alias->name).has_value();
    out.hops.push_back({r.absolute_module, alias->name, fp, sub});
    if (!fp || sub) return out;  // outside the tree, or a module: nothing more to follow
    cur = r.absolute_module;
    n = alias->name;
  }
  out.stop = "the re-export chain is longer than 16 hops";
  return out;
}

}  // namespace cyclefix
