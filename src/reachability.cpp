#include "reachability.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "analysis.hpp"

namespace cyclefix {

namespace {

constexpr int kMaxBaseDepth = 8;

}  // namespace

struct CalleeResolver::FileIndex {
  std::unordered_map<std::string, int> functions;  // qualified name -> index
  std::unordered_map<std::string, int> classes;    // qualified name -> index
  std::unordered_map<std::string, ImportBinding> bindings;
};

namespace {

std::vector<CalleeResolver::FileIndex> build_indexes(const std::vector<FileAnalysis>& files, const ModuleIndex& modules) {
  std::vector<CalleeResolver::FileIndex> out(files.size());
  for (std::size_t f = 0; f < files.size(); ++f) {
    const FileAnalysis& fa = files[f];
    if (!fa.analysed) continue;
    CalleeResolver::FileIndex& ix = out[f];
    for (std::size_t i = 0; i < fa.facts.functions.size(); ++i)
      ix.functions.emplace(fa.facts.functions[i].qualified_name, static_cast<int>(i));
    for (std::size_t i = 0; i < fa.facts.classes.size(); ++i)
      ix.classes.emplace(fa.facts.classes[i].qualified_name, static_cast<int>(i));
    for (std::size_t i = 0; i < fa.facts.imports.size() && i < fa.resolved.size(); ++i) {
      const ImportStatement& st = fa.facts.imports[i];
      if (st.context == ImportContext::FunctionBody || st.context == ImportContext::ClassBody) continue;
      const ResolvedImport& r = fa.resolved[i];
      if (!r.first_party) continue;
      for (const ImportAlias& a : st.names) {
        std::string bound = a.bound_name(st.is_from);
        ImportBinding b;
        if (st.is_from) {
          auto mod = modules.find(r.absolute_module);
          if (!mod) continue;
          auto sub = modules.find(r.absolute_module + "." + a.name);
          if (sub) b = {*sub, ""};
          else b = {*mod, a.name};
        } else {
          // `import a.b.c` binds a; `import a.b.c as d` binds d to a.b.c.
          std::string target = a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.name;
          auto mod = modules.find(target);
          if (!mod) continue;
          b = {*mod, ""};
        }
        ix.bindings[bound] = b;
      }
    }
  }
  return out;
}

}  // namespace

int function_index(const ModuleFacts& facts, std::string_view qualified_name) {
  for (std::size_t i = 0; i < facts.functions.size(); ++i)
    if (facts.functions[i].qualified_name == qualified_name) return static_cast<int>(i);
  return -1;
}

int innermost_function(const ModuleFacts& f, std::uint32_t pos) {
  int best = -1;
  for (std::size_t i = 0; i < f.functions.size(); ++i) {
    const FunctionInfo& fn = f.functions[i];
    if (fn.body_begin <= pos && pos < fn.end && (best < 0 || fn.body_begin >= f.functions[best].body_begin))
      best = static_cast<int>(i);
  }
  return best;
}

std::vector<int> enclosing_functions(const ModuleFacts& f, int i) {
  std::vector<int> out;
  for (int g = innermost_function(f, f.functions[i].begin); g >= 0; g = innermost_function(f, f.functions[g].begin))
    out.push_back(g);
  return out;
}

std::map<int, std::set<std::string>> functions_importing(const ModuleFacts& facts,
                                                         const std::vector<std::string>& names) {
  std::map<int, std::set<std::string>> uses;
  for (const NameUse& u : facts.uses) {
    if (u.kind != UseKind::Deferred || std::find(names.begin(), names.end(), u.name) == names.end()) continue;
    int fn = innermost_function(facts, u.begin);
    if (fn >= 0) uses[fn].insert(u.name);
  }
  std::map<int, std::set<std::string>> out;
  for (const auto& [fn, used] : uses) {
    std::set<std::string> wanted = used;
    for (int outer : enclosing_functions(facts, fn)) {
      auto it = uses.find(outer);
      if (it == uses.end()) continue;
      for (const auto& n : it->second) wanted.erase(n);
    }
    if (!wanted.empty()) out.emplace(fn, std::move(wanted));
  }
  return out;
}

CalleeResolver::CalleeResolver(const std::vector<FileAnalysis>& files, const ModuleIndex& modules)
    : files_(files), modules_(modules), index_(build_indexes(files, modules)) {}

CalleeResolver::~CalleeResolver() = default;

std::optional<ImportBinding> CalleeResolver::binding(int file, std::string_view name) const {
  const auto& ix = index_[file];
  auto it = ix.bindings.find(std::string(name));
  if (it == ix.bindings.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<ModuleId, std::string>> CalleeResolver::module_prefix(int file,
                                                                           std::string_view dotted) const {
  auto dot = dotted.find('.');
  auto head = binding(file, dotted.substr(0, dot));
  if (!head || !head->name.empty()) return std::nullopt;
  ModuleId m = head->module;
  std::string rest = dot == std::string_view::npos ? "" : std::string(dotted.substr(dot + 1));
  // Walk down submodules: a.b.c.f -> module a.b.c, rest "f".
  while (!rest.empty()) {
    auto d = rest.find('.');
    std::string part = rest.substr(0, d);
    auto sub = modules_.find(modules_[m].name + "." + part);
    if (!sub) break;
    m = *sub;
    rest = d == std::string::npos ? "" : rest.substr(d + 1);
  }
  return std::make_pair(m, rest);
}

std::vector<BodyRef> CalleeResolver::constructors(int file, const std::string& class_name, int depth) const {
  std::vector<BodyRef> out;
  if (depth > kMaxBaseDepth) return out;
  const auto& ix = index_[file];
  auto c = ix.classes.find(class_name);
  if (c == ix.classes.end()) return out;
  bool has_init = false;
  for (const char* m : {"__new__", "__init__", "__post_init__"}) {
    auto f = ix.functions.find(class_name + "." + m);
    if (f != ix.functions.end()) {
      out.push_back({file, f->second});
      if (std::string_view(m) == "__init__") has_init = true;
    }
  }
  if (!has_init) {
    // Inherited constructors from bases defined in this module or imported.
    for (const std::string& base : files_[file].facts.classes[c->second].bases) {
      for (BodyRef b : resolve_call(file, -1, base)) out.push_back(b);
    }
  }
  return out;
}

std::vector<BodyRef> CalleeResolver::in_module(ModuleId m, std::string_view name) const {
  int file = modules_[m].file;
  if (file < 0 || !files_[file].analysed || name.empty() || name.find('.') != std::string_view::npos) {
    // `mod.Cls.method`: a class attribute of another module.
    if (file >= 0 && files_[file].analysed && !name.empty()) {
      const auto& ix = index_[file];
      auto f = ix.functions.find(std::string(name));
      if (f != ix.functions.end()) return {{file, f->second}};
    }
    return {};
  }
  const auto& ix = index_[file];
  auto f = ix.functions.find(std::string(name));
  if (f != ix.functions.end()) return {{file, f->second}};
  if (ix.classes.count(std::string(name))) return constructors(file, std::string(name), 0);
  return {};
}

std::vector<BodyRef> CalleeResolver::resolve_call(int file, int in_function, std::string_view callee) const {
  const FileAnalysis& fa = files_[file];
  const auto& ix = index_[file];
  auto dot = callee.find('.');
  std::string head(callee.substr(0, dot));
  std::string rest = dot == std::string_view::npos ? "" : std::string(callee.substr(dot + 1));

  // self.m() / cls.m() inside a method: the same class's method.
  if ((head == "self" || head == "cls") && !rest.empty() && rest.find('.') == std::string::npos &&
      in_function >= 0) {
    const std::string& q = fa.facts.functions[in_function].qualified_name;
    auto last = q.rfind('.');
    if (last != std::string::npos) {
      std::string cls = q.substr(0, last);
      auto f = ix.functions.find(cls + "." + rest);
      if (f != ix.functions.end()) return {{file, f->second}};
    }
    return {};
  }
  // A name of this module: a function, a class, or Cls.method.
  std::string whole(callee);
  auto f = ix.functions.find(whole);
  if (f != ix.functions.end()) return {{file, f->second}};
  if (ix.classes.count(whole)) return constructors(file, whole, 0);
  // A name bound by a first-party import.
  auto b = binding(file, head);
  if (!b) return {};
  if (!b->name.empty()) {
    std::string target = rest.empty() ? b->name : b->name + "." + rest;
    return in_module(b->module, target);
  }
  auto mp = module_prefix(file, callee);
  if (!mp) return {};
  return in_module(mp->first, mp->second);
}

Reachability compute_reachability(const std::vector<FileAnalysis>& files, const ModuleIndex& modules) {
  Reachability r;
  r.runs.resize(files.size());
  r.reached_from.resize(files.size());
  r.reached_line.resize(files.size());
  for (std::size_t f = 0; f < files.size(); ++f) {
    r.runs[f].assign(files[f].facts.functions.size(), false);
    r.reached_from[f].assign(files[f].facts.functions.size(), -1);
    r.reached_line[f].assign(files[f].facts.functions.size(), 0);
  }
  CalleeResolver resolver(files, modules);
  std::deque<BodyRef> work;
  auto visit_events = [&](int file, int function, const std::vector<Event>& events, int origin) {
    for (const Event& e : events) {
      if (e.kind != Event::Kind::Call) continue;
      for (BodyRef b : resolver.resolve_call(file, function, e.name)) {
        if (r.runs[b.file][b.function]) continue;
        r.runs[b.file][b.function] = true;
        r.reached_from[b.file][b.function] = origin;
        r.reached_line[b.file][b.function] = function < 0 ? e.line : r.reached_line[file][function];
        work.push_back(b);
      }
    }
  };
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (!files[f].analysed) continue;
    visit_events(static_cast<int>(f), -1, files[f].facts.events, static_cast<int>(f));
    while (!work.empty()) {
      BodyRef b = work.front();
      work.pop_front();
      visit_events(b.file, b.function, files[b.file].facts.functions[b.function].events, static_cast<int>(f));
    }
  }
  return r;
}

}  // namespace cyclefix
