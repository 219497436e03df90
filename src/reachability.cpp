#include "reachability.hpp"

#include <algorithm>
#include <deque>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "analysis.hpp"
#include "parallel.hpp"

namespace cyclefix {

namespace {

// Bounds the walk through bases, aliases and modules (a cycle of aliases or of
// bases is an error in Python, but the model must not loop on it).
constexpr int kMaxReachDepth = 8;

bool is_method(const FunctionInfo& f) { return !f.class_name.empty(); }

// Methods of dict, list, set, frozenset, tuple, str, bytes, bytearray, int and
// float (Python 3.11's dir(), public names).
const std::unordered_set<std::string_view> kBuiltinMethods = {
    "add", "append", "as_integer_ratio", "bit_count", "bit_length", "capitalize", "casefold", "center",
    "clear", "conjugate", "copy", "count", "decode", "denominator", "difference", "difference_update",
    "discard", "encode", "endswith", "expandtabs", "extend", "find", "format", "format_map", "from_bytes",
    "fromhex", "fromkeys", "get", "hex", "imag", "index", "insert", "intersection", "intersection_update",
    "is_integer", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isdisjoint", "isidentifier",
    "islower", "isnumeric", "isprintable", "isspace", "issubset", "issuperset", "istitle", "isupper", "items",
    "join", "keys", "ljust", "lower", "lstrip", "maketrans", "numerator", "partition", "pop", "popitem",
    "real", "remove", "removeprefix", "removesuffix", "replace", "reverse", "rfind", "rindex", "rjust",
    "rpartition", "rsplit", "rstrip", "setdefault", "sort", "split", "splitlines", "startswith", "strip",
    "swapcase", "symmetric_difference", "symmetric_difference_update", "title", "to_bytes", "translate",
    "union", "update", "upper", "values", "zfill",
};


}  // namespace

// A per-file name table: (name, value) pairs sorted by name, looked up by
// binary search. Names are views into the file's facts, which outlive the
// resolver. A file holds a few dozen names; hash maps of them (a node and a
// bucket per name, plus a copy of the name) held about 130 MB more on the
// 50,000-file benchmark tree, where the tables hold 1.75 M definitions.
template <class V>
class NameTable {
 public:
  using Item = std::pair<std::string_view, V>;
  // Building: add in any order, then sort once (`keep_last`: of equal names
  // the last added wins, as an assignment over an earlier one; else the first).
  void add(std::string_view name, V v) { items_.emplace_back(name, std::move(v)); }
  void sort(bool keep_last = false) {
    if (keep_last) std::reverse(items_.begin(), items_.end());
    std::stable_sort(items_.begin(), items_.end(), [](const Item& x, const Item& y) { return x.first < y.first; });
    auto same = [](const Item& x, const Item& y) { return x.first == y.first; };
    items_.erase(std::unique(items_.begin(), items_.end(), same), items_.end());
    items_.shrink_to_fit();
  }
  const Item* find(std::string_view name) const {
    auto it = std::lower_bound(items_.begin(), items_.end(), name, [](const Item& x, std::string_view n) { return x.first < n; });
    return it != items_.end() && it->first == name ? &*it : nullptr;
  }
  static constexpr const Item* end() { return nullptr; }
  bool count(std::string_view name) const { return find(name) != nullptr; }

  // A table of every value of each name, in the order given (a name defined
  // twice, an alias assigned twice): from (name, value) pairs.
  template <class T>
  static NameTable grouped(std::vector<std::pair<std::string_view, T>> pairs) {
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    NameTable out;
    for (std::size_t i = 0; i < pairs.size();) {
      V all;
      std::size_t j = i;
      for (; j < pairs.size() && pairs[j].first == pairs[i].first; ++j) all.push_back(std::move(pairs[j].second));
      out.items_.emplace_back(pairs[i].first, std::move(all));
      i = j;
    }
    out.items_.shrink_to_fit();
    return out;
  }

 private:
  std::vector<Item> items_;
};

// A per-file set of names: sorted views into the file's facts (16 bytes a
// name; a NameTable of empty values took 24, and the module-level names of the
// 50,000-file benchmark tree are 1.75 M).
class SortedNames {
 public:
  void add(std::string_view name) { items_.push_back(name); }
  void sort() {
    std::sort(items_.begin(), items_.end());
    items_.erase(std::unique(items_.begin(), items_.end()), items_.end());
    items_.shrink_to_fit();
  }
  // The stored view of `name`, or null.
  const std::string_view* find(std::string_view name) const {
    auto it = std::lower_bound(items_.begin(), items_.end(), name);
    return it != items_.end() && *it == name ? &*it : nullptr;
  }
  bool count(std::string_view name) const { return find(name) != nullptr; }

 private:
  std::vector<std::string_view> items_;
};

// Lists of ints per key 0..n-1, in one array (a vector per key held 24 bytes
// for each, mostly empty: a large tree has 0.3 M functions).
class IntLists {
 public:
  // From (key, value) pairs with keys in [0, n), values of a key in the order given.
  IntLists(std::size_t n, const std::vector<std::pair<std::uint32_t, int>>& pairs) : begin_(n + 1, 0) {
    for (const auto& [k, v] : pairs) ++begin_[k + 1];
    for (std::size_t k = 0; k < n; ++k) begin_[k + 1] += begin_[k];
    values_.resize(pairs.size());
    std::vector<std::uint32_t> at(begin_.begin(), begin_.end() - 1);
    for (const auto& [k, v] : pairs) values_[at[k]++] = v;
  }
  IntLists() = default;
  std::span<const int> operator[](std::size_t k) const {
    return {values_.data() + begin_[k], values_.data() + begin_[k + 1]};
  }
  std::size_t size() const { return begin_.empty() ? 0 : begin_.size() - 1; }

 private:
  std::vector<std::uint32_t> begin_;
  std::vector<int> values_;
};

struct CalleeResolver::FileIndex {
  NameTable<std::vector<int>> functions;  // qualified name -> every def of it
  NameTable<int> classes;                 // qualified name -> index
  NameTable<ImportBinding> bindings;
  NameTable<std::vector<std::string>> aliases;  // module-level `name = target`
  SortedNames third_party;  // names bound by imports of other packages
  SortedNames defined;      // module-level names
  std::vector<ModuleId> stars;   // first-party modules of module-level star imports, in order
  // First-party imports inside functions: the function (qualified name), the
  // name bound, what it is bound to. Few per file: scanned.
  struct LocalBinding {
    std::string_view scope, name;
    ImportBinding binding;
  };
  std::vector<LocalBinding> local_bindings;
  // Function index -> the functions whose def runs when its body runs; the
  // module body's list is at the end. The same for classes.
  IntLists defined_in, classes_in;
};

namespace {

std::vector<CalleeResolver::FileIndex> build_indexes(const std::vector<FileAnalysis>& files, const ModuleIndex& modules) {
  std::vector<CalleeResolver::FileIndex> out(files.size());
  // Each file's tables from its own facts alone: on every core.
  parallel_for(files.size(), 0, [] { return 0; }, [&](std::size_t f, int) {
    const FileAnalysis& fa = files[f];
    if (!fa.analysed) return;
    CalleeResolver::FileIndex& ix = out[f];
    const auto& fns = fa.facts.functions;
    {
      std::vector<std::pair<std::string_view, int>> defs;  // every def of a name, in source order
      for (std::size_t i = 0; i < fns.size(); ++i) defs.emplace_back(fns[i].qualified_name, static_cast<int>(i));
      ix.functions = NameTable<std::vector<int>>::grouped(std::move(defs));
    }
    for (std::size_t i = 0; i < fa.facts.classes.size(); ++i)
      ix.classes.add(fa.facts.classes[i].qualified_name, static_cast<int>(i));
    ix.classes.sort();
    {
      std::vector<std::pair<std::string_view, std::string>> targets;
      for (const Alias& al : fa.facts.aliases) targets.emplace_back(al.name, al.target);
      ix.aliases = NameTable<std::vector<std::string>>::grouped(std::move(targets));
    }
    for (const Definition& d : fa.facts.definitions) ix.defined.add(d.name);
    ix.defined.sort();
    // Functions come in source order, so an enclosing def precedes what it holds.
    std::vector<std::pair<std::uint32_t, int>> owned;  // (owner, def); the module body is fns.size()
    owned.reserve(std::max(fns.size(), fa.facts.classes.size()));
    std::vector<int> open;  // enclosing defs of the current one
    for (std::size_t i = 0; i < fns.size(); ++i) {
      while (!open.empty() && !(fns[open.back()].body_begin <= fns[i].begin && fns[i].begin < fns[open.back()].end))
        open.pop_back();
      owned.emplace_back(open.empty() ? fns.size() : static_cast<std::size_t>(open.back()), static_cast<int>(i));
      open.push_back(static_cast<int>(i));
    }
    ix.defined_in = IntLists(fns.size() + 1, owned);
    owned.clear();
    // A class is made when the innermost def around it runs: strip its
    // qualified name until a function's.
    for (std::size_t c = 0; c < fa.facts.classes.size(); ++c) {
      std::string q = fa.facts.classes[c].qualified_name;
      std::size_t owner = fns.size();
      for (auto dot = q.rfind('.'); dot != std::string::npos; dot = q.rfind('.')) {
        q.resize(dot);
        if (auto f = ix.functions.find(q); f != ix.functions.end()) {
          owner = static_cast<std::size_t>(f->second.back());
          break;
        }
      }
      owned.emplace_back(owner, static_cast<int>(c));
    }
    ix.classes_in = IntLists(fns.size() + 1, owned);
    for (std::size_t i = 0; i < fa.facts.imports.size() && i < fa.resolved.size(); ++i) {
      const ImportStatement& st = fa.facts.imports[i];
      if (st.context == ImportContext::ClassBody) continue;
      const bool local = st.context == ImportContext::FunctionBody;
      const ResolvedImport& r = fa.resolved[i];
      if (local && (st.star || !r.first_party)) continue;
      if (st.star) {
        if (r.first_party && st.context == ImportContext::ModuleLevel)
          if (auto mod = modules.find(r.absolute_module)) ix.stars.push_back(*mod);
        continue;
      }
      if (!r.first_party) {
        for (const ImportAlias& a : st.names) ix.third_party.add(a.bound_view(st.is_from));
        continue;
      }
      for (const ImportAlias& a : st.names) {
        std::string_view bound = a.bound_view(st.is_from);
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
        if (local) ix.local_bindings.push_back({st.scope, bound, b});
        else ix.bindings.add(bound, std::move(b));
      }
    }
    ix.third_party.sort();
    ix.bindings.sort(/*keep_last=*/true);  // a later import of a name rebinds it
  });
  return out;
}

// The CallArguments of body `function` (-1: the module body), of its call
// event `event` when given: facts.call_arguments is sorted by both.
std::span<const CallArgument> arguments_of(const ModuleFacts& facts, int function,
                                           std::optional<std::uint32_t> event = std::nullopt) {
  const auto& args = facts.call_arguments;
  auto key = [&](const CallArgument& a) { return std::pair{a.function, event ? a.event : 0u}; };
  const std::pair want{function, event.value_or(0u)};
  auto lo = std::lower_bound(args.begin(), args.end(), want, [&](const CallArgument& a, auto k) { return key(a) < k; });
  auto hi = std::upper_bound(lo, args.end(), want, [&](auto k, const CallArgument& a) { return k < key(a); });
  return {lo, hi};
}

void append(std::vector<BodyRef>& out, const std::vector<BodyRef>& more) {
  for (BodyRef b : more)
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
}

}  // namespace

// An `@overload` (`@typing.overload`) stub: its body never runs, the name
// ends up bound to the def that follows the stubs.
bool is_overload_stub(const FunctionInfo& fn) {
  return std::any_of(fn.decorators.begin(), fn.decorators.end(),
                     [](const std::string& d) { return d == "overload" || d.ends_with(".overload"); });
}

std::vector<BodyRef> CalleeResolver::defs(int file, const std::vector<int>& functions) const {
  std::vector<BodyRef> out;
  for (int i : functions)
    if (!is_overload_stub(files_[file].facts.functions[i])) out.push_back({file, i});
  if (out.empty())  // stubs only (a .pyi-like module): keep them
    for (int i : functions) out.push_back({file, i});
  return out;
}

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
    if (u.kind != UseKind::Deferred || std::find(names.begin(), names.end(), u.name()) == names.end()) continue;
    int fn = innermost_function(facts, u.begin);
    if (fn >= 0) uses[fn].insert(std::string(u.name()));
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

CalleeResolver::CalleeResolver(const std::vector<FileAnalysis>& files, const ModuleIndex& modules, Reach reach)
    : files_(files), modules_(modules), index_(build_indexes(files, modules)), simulator_(reach == Reach::Simulator) {
  if (simulator_) return;
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (!files[f].analysed) continue;
    for (std::size_t i = 0; i < files[f].facts.functions.size(); ++i) {
      const FunctionInfo& fn = files[f].facts.functions[i];
      if (is_method(fn)) methods_by_name_[std::string(fn.name())].push_back({static_cast<int>(f), static_cast<int>(i)});
    }
  }
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (!files[f].analysed) continue;
    for (const ClassInfo& c : files[f].facts.classes) {
      for (const std::string& base : c.bases) {
        if (auto b = resolve_class(static_cast<int>(f), base, 0))
          subclasses_[std::to_string(b->file) + "\t" + b->name].push_back({static_cast<int>(f), c.qualified_name});
      }
    }
  }
}

std::vector<BodyRef> CalleeResolver::overrides(int file, int in_function, std::string_view callee,
                                               bool protocol) const {
  std::vector<BodyRef> out;
  if (simulator_) return out;
  auto dot = callee.find('.');
  if (dot == std::string_view::npos) return out;
  std::string_view head = callee.substr(0, dot), name = callee.substr(dot + 1);
  if ((head != "self" && head != "cls") || name.find('.') != std::string_view::npos ||
      (name.starts_with("__") && !protocol))
    return out;
  auto c = enclosing_class(file, in_function);
  if (!c) return out;
  std::vector<ClassRef> todo{*c};
  std::set<std::string> seen{std::to_string(c->file) + "\t" + c->name};
  while (!todo.empty() && seen.size() < 4096) {
    ClassRef k = std::move(todo.back());
    todo.pop_back();
    auto it = subclasses_.find(std::to_string(k.file) + "\t" + k.name);
    if (it == subclasses_.end()) continue;
    for (const ClassRef& sub : it->second) {
      if (!seen.insert(std::to_string(sub.file) + "\t" + sub.name).second) continue;
      const auto& ix = index_[sub.file];
      const std::string key = sub.name + "." + std::string(name);
      if (auto f = ix.functions.find(key); f != ix.functions.end()) {
        for (int i : f->second) out.push_back({sub.file, i});
      } else if (auto al = ix.aliases.find(key); al != ix.aliases.end()) {
        // A class attribute made from a callable (`widget = Select` in a
        // subclass of a Field whose __init__ calls `self.widget()`).
        for (const std::string& t : al->second) append(out, lookup(sub.file, t, 1));
      }
      todo.push_back(sub);
    }
  }
  return out;
}

CalleeResolver::~CalleeResolver() = default;

std::optional<ImportBinding> CalleeResolver::binding(int file, std::string_view name) const {
  const auto& ix = index_[file];
  auto it = ix.bindings.find(name);
  if (it == ix.bindings.end()) return std::nullopt;
  return it->second;
}

std::optional<ImportBinding> CalleeResolver::binding_or_star(int file, std::string_view name) const {
  if (auto b = binding(file, name)) return b;
  const auto& ix = index_[file];
  if (ix.stars.empty() || ix.defined.count(name) || ix.third_party.count(name)) return std::nullopt;
  for (auto m = ix.stars.rbegin(); m != ix.stars.rend(); ++m)
    if (auto stable = star_export(*m, name, 0)) return ImportBinding{*m, *stable};
  return std::nullopt;
}

std::optional<std::string_view> CalleeResolver::star_export(ModuleId m, std::string_view name, int depth) const {
  const int file = modules_[m].file;
  if (file < 0 || !files_[file].analysed || depth > kMaxReachDepth || name.empty()) return std::nullopt;
  const ModuleFacts& f = files_[file].facts;
  // Listed in a literal __all__; without one, any public module-level name.
  const std::string wanted(name);
  const std::string* listed = f.star_candidate(wanted);
  if (!listed) return std::nullopt;
  if (f.dunder_all) return std::string_view(*listed);
  const auto& ix = index_[file];
  if (const auto* d = ix.defined.find(name)) return *d;
  if (const auto* b = ix.bindings.find(name)) return b->first;
  for (auto s = ix.stars.rbegin(); s != ix.stars.rend(); ++s)
    if (auto stable = star_export(*s, name, depth + 1)) return stable;
  return std::nullopt;
}

std::span<const int> CalleeResolver::defined_in(int file, int function) const {
  const auto& d = index_[file].defined_in;
  if (d.size() == 0) return {};  // a file not analysed
  return d[function < 0 ? d.size() - 1 : static_cast<std::size_t>(function)];
}

std::span<const int> CalleeResolver::classes_in(int file, int function) const {
  const auto& d = index_[file].classes_in;
  if (d.size() == 0) return {};
  return d[function < 0 ? d.size() - 1 : static_cast<std::size_t>(function)];
}

std::optional<std::pair<ModuleId, std::string>> CalleeResolver::module_prefix(int file,
                                                                           std::string_view dotted) const {
  auto dot = dotted.find('.');
  auto head = binding(file, dotted.substr(0, dot));
  if (!head || !head->name.empty()) return std::nullopt;
  return submodule(head->module, dot == std::string_view::npos ? "" : std::string(dotted.substr(dot + 1)));
}

std::pair<ModuleId, std::string> CalleeResolver::submodule(ModuleId m, std::string rest) const {
  // Walk down submodules: a.b.c.f -> module a.b.c, rest "f".
  while (!rest.empty()) {
    auto d = rest.find('.');
    std::string part = rest.substr(0, d);
    auto sub = modules_.find(modules_[m].name + "." + part);
    if (!sub) break;
    m = *sub;
    rest = d == std::string::npos ? "" : rest.substr(d + 1);
  }
  return {m, rest};
}

std::optional<CalleeResolver::ClassRef> CalleeResolver::resolve_class(int file, std::string_view dotted,
                                                                      int depth) const {
  if (file < 0 || depth > kMaxReachDepth || dotted.empty()) return std::nullopt;
  if (dotted.ends_with("()")) {
    // A base made by a call of a classmethod, `Base.from_queryset()`: taken
    // as Base (such factories return a subclass of cls). A plain function's
    // product is not followed.
    std::string_view f = dotted.substr(0, dotted.size() - 2);
    auto dot = f.rfind('.');
    if (dot == std::string_view::npos || f.find("()") != std::string_view::npos) return std::nullopt;
    auto c = resolve_class(file, f.substr(0, dot), depth + 1);
    if (c && !method(*c, f.substr(dot + 1), depth + 1).empty()) return c;
    return std::nullopt;
  }
  const auto& ix = index_[file];
  std::string whole(dotted);
  if (ix.classes.count(whole)) return ClassRef{file, whole};
  auto dot = dotted.find('.');
  std::string head(dotted.substr(0, dot));
  std::string rest = dot == std::string_view::npos ? "" : std::string(dotted.substr(dot + 1));
  if (auto al = ix.aliases.find(head); al != ix.aliases.end()) {
    for (const std::string& t : al->second) {
      if (t == head) continue;
      if (auto c = resolve_class(file, rest.empty() ? t : t + "." + rest, depth + 1)) return c;
    }
  }
  auto b = binding_or_star(file, head);
  if (!b) return std::nullopt;
  ModuleId m = b->module;
  std::string name;
  if (!b->name.empty()) {
    name = b->name;
    if (!rest.empty()) name += "." + rest;
  } else {
    auto mp = module_prefix(file, dotted);
    if (!mp) return std::nullopt;
    m = mp->first;
    name = mp->second;
  }
  int target = modules_[m].file;
  if (target < 0 || !files_[target].analysed) return std::nullopt;
  return resolve_class(target, name, depth + 1);
}

std::vector<BodyRef> CalleeResolver::method(const ClassRef& c, std::string_view name, int depth,
                                            bool skip_self) const {
  if (depth > kMaxReachDepth) return {};
  const auto& ix = index_[c.file];
  if (!skip_self) {
    auto f = ix.functions.find(c.name + "." + std::string(name));
    if (f != ix.functions.end()) return defs(c.file, f->second);
    // A class attribute made from a callable: `__getattr__ = new_method_proxy(getattr)`.
    if (auto al = ix.aliases.find(c.name + "." + std::string(name)); al != ix.aliases.end()) {
      std::vector<BodyRef> out;
      for (const std::string& t : al->second) append(out, lookup(c.file, t, depth + 1));
      if (!out.empty()) return out;
    }
  }
  // The first base (depth first, as far as the MRO goes for single inheritance)
  // that has it.
  auto k = ix.classes.find(c.name);
  if (k == ix.classes.end()) return {};
  for (const std::string& base : files_[c.file].facts.classes[k->second].bases) {
    auto bc = resolve_class(c.file, base, depth + 1);
    if (!bc) continue;
    auto found = method(*bc, name, depth + 1);
    if (!found.empty()) return found;
  }
  return {};
}

std::optional<CalleeResolver::ClassRef> CalleeResolver::metaclass_of(const ClassRef& c, int depth) const {
  if (depth > kMaxReachDepth) return std::nullopt;
  auto k = index_[c.file].classes.find(c.name);
  if (k == index_[c.file].classes.end()) return std::nullopt;
  const ClassInfo& info = files_[c.file].facts.classes[k->second];
  if (!info.metaclass.empty()) return resolve_class(c.file, info.metaclass, depth + 1);
  for (const std::string& base : info.bases) {
    auto bc = resolve_class(c.file, base, depth + 1);
    if (!bc) continue;
    if (auto m = metaclass_of(*bc, depth + 1)) return m;
  }
  return std::nullopt;
}

std::vector<BodyRef> CalleeResolver::constructors(const ClassRef& c, int depth) const {
  std::vector<BodyRef> out;
  if (depth > kMaxReachDepth) return out;
  // A class's own __setattr__ runs for every `self.x = ...` of its __init__
  // (a base's __init__ too: Django's LazyObject.__init__ sets `_wrapped`
  // through LazySettings.__setattr__).
  for (const char* m : {"__new__", "__init__", "__post_init__", "__set_name__", "__setattr__"})
    append(out, method(c, m, depth));
  if (auto meta = metaclass_of(c, depth)) append(out, method(*meta, "__call__", depth));
  return out;
}

std::vector<BodyRef> CalleeResolver::subclass_hooks(const ClassRef& c, int depth) const {
  std::vector<BodyRef> out;
  if (depth > kMaxReachDepth) return out;
  append(out, method(c, "__init_subclass__", depth));
  if (auto meta = metaclass_of(c, depth)) {
    for (const char* m : {"__prepare__", "__new__", "__init__"}) append(out, method(*meta, m, depth));
  }
  return out;
}

std::vector<BodyRef> CalleeResolver::in_module(ModuleId m, std::string_view name, int depth) const {
  int file = modules_[m].file;
  if (file < 0 || !files_[file].analysed || name.empty()) return {};
  return lookup(file, name, depth + 1);
}

// `dotted` as a name of `file`'s module namespace: a function, a class, a
// `Cls.method` (through the bases), an alias, or a name a first-party import bound.
// The simulator's constructors: the class's own __new__/__init__/__post_init__,
// and without an __init__ of its own, its bases' constructors.
std::vector<BodyRef> CalleeResolver::simulator_constructors(int file, const std::string& class_name, int depth) const {
  std::vector<BodyRef> out;
  if (depth > kMaxReachDepth) return out;
  const auto& ix = index_[file];
  auto c = ix.classes.find(class_name);
  if (c == ix.classes.end()) return out;
  bool has_init = false;
  for (const char* m : {"__new__", "__init__", "__post_init__"}) {
    auto f = ix.functions.find(class_name + "." + m);
    if (f == ix.functions.end()) continue;
    out.push_back({file, f->second.front()});
    has_init = has_init || std::string_view(m) == "__init__";
  }
  if (!has_init) {
    for (const std::string& base : files_[file].facts.classes[c->second].bases) {
      auto dot = base.find('.');
      std::string head = base.substr(0, dot);
      if (ix.classes.count(base)) {
        append(out, simulator_constructors(file, base, depth + 1));
      } else if (auto b = binding(file, head)) {
        append(out, lookup(file, base, depth + 1));
      }
    }
  }
  return out;
}

std::vector<BodyRef> CalleeResolver::lookup(int file, std::string_view dotted, int depth) const {
  if (depth > kMaxReachDepth || dotted.empty()) return {};
  const auto& ix = index_[file];
  if (simulator_) {
    if (dotted.find("()") != std::string_view::npos || dotted.ends_with(".__init_subclass__") ||
        dotted.ends_with(".__class_getitem__"))
      return {};
    std::string whole(dotted);
    // A def or class nested in a function (the collector names them by their
    // qualified names) was not followed when the simulator was measured.
    if (auto dot = whole.rfind('.'); dot != std::string::npos && ix.functions.count(whole.substr(0, dot)) &&
                                     !ix.classes.count(whole.substr(0, dot)))
      return {};
    if (auto f = ix.functions.find(whole); f != ix.functions.end()) return {defs(file, f->second).front()};
    if (ix.classes.count(whole)) return simulator_constructors(file, whole, depth);
    return through_import(file, dotted, depth);
  }
  // "Cls()" is an instance of Cls (an alias `x = Cls(...)`): calling it runs
  // Cls.__call__, "Cls().m" runs Cls.m.
  if (auto paren = dotted.find("()"); paren != std::string_view::npos) {
    // What subclassing a base made by a call runs (ClassInfo::bases).
    if (dotted.substr(paren) == "().__init_subclass__") {
      auto c = resolve_class(file, dotted.substr(0, paren + 2), depth + 1);
      return c ? subclass_hooks(*c, depth) : std::vector<BodyRef>{};
    }
    auto c = resolve_class(file, dotted.substr(0, paren), depth + 1);
    if (!c) {
      auto product = factory_product(file, dotted.substr(0, paren), dotted.substr(paren + 2), depth);
      if (!product.empty()) return product;
      c = returned_class(file, dotted.substr(0, paren), depth);
      if (!c) return {};
    }
    std::string_view rest = dotted.substr(paren + 2);
    if (rest.empty()) return method(*c, "__call__", depth + 1);
    if (rest.front() != '.') return {};
    rest.remove_prefix(1);
    const std::string_view attr = rest.substr(0, rest.find('.'));
    auto found = method(*c, attr, depth + 1);
    // An attribute the class lacks: its __getattr__ (a lazy proxy's).
    if (found.empty() && !attr.starts_with("__")) return method(*c, "__getattr__", depth + 1);
    return found;
  }
  std::string whole(dotted);
  if (auto f = ix.functions.find(whole); f != ix.functions.end()) return defs(file, f->second);
  if (ix.classes.count(whole)) return constructors({file, whole}, depth);
  // `Cls.method`, `Outer.Inner.method`: the longest class prefix.
  for (auto dot = dotted.rfind('.'); dot != std::string_view::npos && dot > 0; dot = dotted.rfind('.', dot - 1)) {
    std::string cls(dotted.substr(0, dot));
    if (!ix.classes.count(cls)) continue;
    std::string_view rest = dotted.substr(dot + 1);
    if (rest.find('.') != std::string_view::npos) break;
    if (rest == "__init_subclass__") return subclass_hooks({file, cls}, depth);
    return method({file, cls}, rest, depth);
  }
  auto dot = dotted.find('.');
  std::string head(dotted.substr(0, dot));
  std::string rest = dot == std::string_view::npos ? "" : std::string(dotted.substr(dot + 1));
  if (auto al = ix.aliases.find(head); al != ix.aliases.end()) {
    std::vector<BodyRef> out;
    for (const std::string& t : al->second)
      if (t != head) append(out, lookup(file, rest.empty() ? t : t + "." + rest, depth + 1));
    if (!out.empty()) return out;
  }
  return through_import(file, dotted, depth);
}

// "f()" where f is a function (an alias `g = f(...)`, then `g()`): f's body
// returns a def or class nested in it (`lazy()` returning `__wrapper__`, a
// factory returning a class), and calling what it returned runs that def, or
// constructs that class. `rest` is what follows the "()": only a call of the
// product itself ("") is followed.
std::vector<BodyRef> CalleeResolver::factory_product(int file, std::string_view factory, std::string_view rest,
                                                     int depth) const {
  if (factory.find("()") != std::string_view::npos) return {};
  // Each further "()" calls what the previous call returned ("f()()": Django's
  // `make_middleware_decorator(cls)()`); a body's returns that are themselves
  // products ("g()", "g()()") are what calling them runs.
  std::vector<BodyRef> made = lookup(file, factory, depth + 1);
  for (;;) {
    std::vector<BodyRef> out;
    for (BodyRef f : made) {
      const FunctionInfo& fn = files_[f.file].facts.functions[f.function];
      for (const std::string& r : fn.returns)
        if (r.starts_with(fn.qualified_name + ".") || (r.ends_with("()()") && !is_method(fn)))
          append(out, lookup(f.file, r, depth + 1));
    }
    if (rest.empty() || out.empty()) return out;
    if (!rest.starts_with("()")) return {};
    rest.remove_prefix(2);
    made = std::move(out);
    if (++depth > kMaxReachDepth) return {};
  }
}

std::optional<CalleeResolver::ClassRef> CalleeResolver::instance_class(int file, std::string_view name,
                                                                       int depth) const {
  if (file < 0 || depth > kMaxReachDepth || !files_[file].analysed) return std::nullopt;
  const auto& ix = index_[file];
  if (ix.functions.count(name) || ix.classes.count(name)) return std::nullopt;
  if (const auto* al = ix.aliases.find(name)) {
    // Only a name assigned once: which of two instances is live is not known.
    if (al->second.size() != 1) return std::nullopt;
    const std::string& t = al->second.front();
    if (!t.ends_with("()") || t.find("()") != t.size() - 2) return std::nullopt;
    const std::string_view made = std::string_view(t).substr(0, t.size() - 2);
    if (auto c = resolve_class(file, made, depth + 1)) return c;
    return returned_class(file, made, depth + 1);
  }
  auto b = binding(file, name);
  if (!b || b->name.empty() || b->name.find('.') != std::string_view::npos) return std::nullopt;
  return instance_class(modules_[b->module].file, b->name, depth + 1);
}

std::optional<CalleeResolver::ClassRef> CalleeResolver::returned_class(int file, std::string_view factory,
                                                                       int depth) const {
  if (depth > kMaxReachDepth) return std::nullopt;
  for (BodyRef f : lookup(file, factory, depth + 1)) {
    const FunctionInfo& fn = files_[f.file].facts.functions[f.function];
    if (is_method(fn)) continue;  // a constructor: the class itself was resolved already
    for (const std::string& r : fn.returns) {
      if (!r.ends_with("()") || r.find("()") != r.size() - 2) continue;
      if (auto c = resolve_class(f.file, std::string_view(r).substr(0, r.size() - 2), depth + 1)) return c;
    }
  }
  return std::nullopt;
}

CalleeResolver::AttributeRead CalleeResolver::instance_attribute(int file, int in_function, std::string_view dotted,
                                                                 bool local) const {
  const auto dot = dotted.find('.');
  if (dot == std::string_view::npos) return {};
  const std::string_view attr = dotted.substr(dot + 1, dotted.find('.', dot + 1) - dot - 1);
  if (attr.empty() || attr.starts_with("__")) return {};
  std::optional<ClassRef> c;
  if (dotted.substr(0, dot) == "self") {
    // `self.attr` in a method (FactsCollector::record_self_read): the
    // getter of the defining class's property, and of subclasses' (assumed,
    // as overrides). No __getattr__: most such reads are instance attributes.
    c = enclosing_class(file, in_function);
    if (!c) return {};
    AttributeRead out = attribute_read(*c, attr);
    out.assumed.clear();
    for (BodyRef b : overrides(file, in_function, dotted.substr(0, dot + 1 + attr.size())))
      append(out.overrides, getters(b));
    return out;
  }
  if (!local) {
    c = instance_class(file, dotted.substr(0, dot), 0);
  } else if (auto b = local_binding(file, in_function, dotted.substr(0, dot)); b && !b->name.empty()) {
    // `from django.conf import settings` inside the function.
    c = instance_class(modules_[b->module].file, b->name, 1);
  }
  if (!c) return {};
  return attribute_read(*c, attr);
}

CalleeResolver::AttributeRead CalleeResolver::attribute_read(const ClassRef& c, std::string_view attr) const {
  AttributeRead out;
  std::vector<BodyRef> found = method(c, attr, 0);
  if (found.empty()) {
    out.assumed = method(c, "__getattr__", 0);
    return out;
  }
  for (BodyRef b : found) append(out.exact, getters(b));
  return out;
}

std::vector<BodyRef> CalleeResolver::getters(BodyRef b) const {
  const FunctionInfo& fn = files_[b.file].facts.functions[b.function];
  std::vector<BodyRef> get = descriptors(b.file, fn);
  const bool property = std::any_of(fn.decorators.begin(), fn.decorators.end(), [&](const std::string& d) {
    std::string_view last = std::string_view(d).substr(d.rfind('.') + 1);
    if (last == "property" || last == "cached_property" || last == "abstractproperty") return true;
    // A first-party decorator that returns `property(getter)`.
    for (BodyRef db : decorator_bodies(b.file, -1, d)) {
      const auto& returns = files_[db.file].facts.functions[db.function].returns;
      if (std::any_of(returns.begin(), returns.end(), [](const std::string& r) { return makes_property(r); }))
        return true;
    }
    return false;
  });
  if (!property && get.empty()) return {};  // a plain method: reading it runs nothing
  get.insert(get.begin(), b);
  return get;
}

std::vector<BodyRef> CalleeResolver::descriptors(int file, const FunctionInfo& fn) const {
  std::vector<BodyRef> out;
  for (const std::string& d : fn.decorators) {
    if (d.empty() || d.ends_with("()")) continue;
    if (auto c = resolve_class(file, d, 0)) append(out, method(*c, "__get__", 0));
  }
  return out;
}

// `dotted` whose first name a first-party import of `file` bound: looked up in that module.
std::vector<BodyRef> CalleeResolver::through_import(int file, std::string_view dotted, int depth) const {
  auto dot = dotted.find('.');
  auto b = binding_or_star(file, dotted.substr(0, dot));
  if (!b) return {};
  if (!b->name.empty()) {
    std::string name(b->name);
    if (dot != std::string_view::npos) name += dotted.substr(dot);
    return in_module(b->module, name, depth);
  }
  auto mp = module_prefix(file, dotted);
  if (!mp) return {};
  return in_module(mp->first, mp->second, depth);
}

std::optional<CalleeResolver::ClassRef> CalleeResolver::enclosing_class(int file, int in_function) const {
  if (in_function < 0) return std::nullopt;
  const std::string& q = files_[file].facts.functions[in_function].qualified_name;
  auto last = q.rfind('.');
  if (last == std::string::npos) return std::nullopt;
  std::string cls = q.substr(0, last);
  if (!index_[file].classes.count(cls)) return std::nullopt;
  return ClassRef{file, cls};
}

std::vector<BodyRef> CalleeResolver::resolve_call(int file, int in_function, std::string_view callee) const {
  auto dot = callee.find('.');
  std::string_view head = callee.substr(0, dot);
  std::string_view rest = dot == std::string_view::npos ? std::string_view() : callee.substr(dot + 1);

  // self.m() / cls.m() / super().m() inside a method: the class's (or its bases') method.
  if ((head == "self" || head == "cls" || head == "super") && !rest.empty() &&
      rest.find('.') == std::string_view::npos) {
    auto c = enclosing_class(file, in_function);
    if (!c) return {};
    if (simulator_) {
      if (head == "super") return {};
      auto f = index_[file].functions.find(c->name + "." + std::string(rest));
      if (f == index_[file].functions.end()) return {};
      return {{file, f->second.front()}};
    }
    return method(*c, rest, 0, head == "super");
  }
  // `self.a.m()`: reading `self.a` runs a property's getter (or a descriptor's
  // __get__); what it returns is not known.
  if (!simulator_ && (head == "self" || head == "cls") && !rest.empty()) {
    if (auto c = enclosing_class(file, in_function)) return attribute_read(*c, rest.substr(0, rest.find('.'))).exact;
    return {};
  }
  // A name an import in this function (or one around it) bound: `from m import
  // f` moved into the body that calls f is still a call of m.f.
  if (!simulator_)
    if (auto lb = local_binding(file, in_function, head)) {
      if (lb->name.empty()) {
        auto [m, name] = submodule(lb->module, std::string(rest));
        return in_module(m, name, 0);
      }
      return in_module(lb->module, rest.empty() ? std::string(lb->name)
                                                : std::string(lb->name) + "." + std::string(rest), 0);
    }
  return lookup(file, callee, 0);
}

std::optional<CalleeResolver::PartialArguments> CalleeResolver::partial_arguments(int file, std::string_view name,
                                                                                 int depth) const {
  if (file < 0 || depth > kMaxReachDepth || !files_[file].analysed) return std::nullopt;
  const auto& ix = index_[file];
  if (ix.functions.count(name) || ix.classes.count(name)) return std::nullopt;
  const ModuleFacts& facts = files_[file].facts;
  if (ix.aliases.count(name)) {
    int line = 0, count = 0;
    for (const Alias& al : facts.aliases)
      if (al.name == name) line = al.line, ++count;
    if (count != 1) return std::nullopt;  // which binding is live is not known
    for (std::size_t i = 0; i < facts.events.size(); ++i) {
      const Event& e = facts.events[i];
      if (e.kind != Event::Kind::Call || e.line != line || (e.name != "partial" && e.name != "functools.partial"))
        continue;
      PartialArguments out{file, {}};
      for (const CallArgument& a : arguments_of(facts, -1, static_cast<std::uint32_t>(i)))
        if (a.position != 0) out.arguments.push_back(&a);  // position 0: the function
      // Positions as the function sees them: the partial's first argument was the function.
      return out;
    }
    return std::nullopt;
  }
  auto b = binding(file, name);
  if (!b || b->name.empty() || b->name.find('.') != std::string_view::npos) return std::nullopt;
  return partial_arguments(modules_[b->module].file, b->name, depth + 1);
}

std::optional<ImportBinding> CalleeResolver::local_binding(int file, int in_function, std::string_view name) const {
  if (in_function < 0 || index_[file].local_bindings.empty()) return std::nullopt;
  const std::string& q = files_[file].facts.functions[in_function].qualified_name;
  for (const auto& lb : index_[file].local_bindings)
    if (lb.name == name && (q == lb.scope || (q.starts_with(lb.scope) && q[lb.scope.size()] == '.')))
      return lb.binding;
  return std::nullopt;
}

std::vector<BodyRef> CalleeResolver::assume_call(int file, int in_function, std::string_view callee) const {
  auto dot = callee.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string_view head = callee.substr(0, callee.find('.'));
  const auto& ix = index_[file];
  // A module of another package, or a first-party module whose name was looked
  // up exactly: nothing to assume.
  if (ix.third_party.count(std::string(head))) return {};
  if (auto b = binding(file, head); b && b->name.empty() && callee.find('.') == dot) return {};
  std::string_view name = callee.substr(dot + 1);
  // Protocol methods (`super().__init__()` past the first-party bases, a hook
  // of a class the model cannot find) say nothing about which class it is; a
  // method that the builtin containers and strings also have (`d.get()`,
  // `x.append()`) is taken to be theirs: assuming every first-party `get`
  // multiplied the assumed bodies of Django tenfold, none of them seen running
  // in CPython's trace.
  if (name.starts_with("__") || head == "super" || kBuiltinMethods.count(name)) return {};
  static const std::unordered_set<std::string_view> kBuiltinTypes = {
      "str", "bytes", "dict", "list", "set", "frozenset", "tuple", "object", "int", "float", "bool", "type"};
  if (kBuiltinTypes.count(head) && !ix.bindings.count(std::string(head)) && !ix.classes.count(std::string(head)))
    return {};
  (void)in_function;
  auto it = methods_by_name_.find(std::string(name));
  return it == methods_by_name_.end() ? std::vector<BodyRef>{} : it->second;
}

CalleeResolver::ProtocolCall CalleeResolver::protocol(int file, int in_function, std::string_view name) const {
  ProtocolCall out;
  const auto dot = name.rfind('.');
  if (simulator_ || dot == std::string_view::npos) return out;
  const std::string_view operand = name.substr(0, dot), dunder = name.substr(dot + 1);
  std::vector<std::string_view> dunders{dunder};
  for (std::string_view d : protocol_companions(dunder)) dunders.push_back(d);
  auto methods_of = [&](const ClassRef& c) {
    std::vector<BodyRef> found;
    for (std::string_view d : dunders) append(found, method(c, d, 0));
    return found;
  };
  if (operand == "self") {
    if (auto c = enclosing_class(file, in_function)) {
      out.exact = methods_of(*c);
      for (std::string_view d : dunders)
        append(out.overrides, overrides(file, in_function, "self." + std::string(d), true));
      return out;
    }
  } else if (operand != "?") {
    const auto& ix = index_[file];
    const std::string head(operand.substr(0, operand.find('.')));
    if (ix.third_party.count(head)) return out;
    if (operand.find('.') == std::string_view::npos) {
      if (auto c = instance_class(file, operand, 0)) {
        out.exact = methods_of(*c);
        return out;
      }
      if (ix.functions.count(std::string(operand))) return out;
      // An instance another package's class made (`_LOCK = threading.Lock()`).
      if (const auto* al = ix.aliases.find(operand); al && !al->second.empty() &&
          std::all_of(al->second.begin(), al->second.end(), [&](const std::string& t) {
            return ix.third_party.count(t.substr(0, t.find_first_of(".(")));
          }))
        return out;
    }
    // A class: `Cls | None`, `Cls[int]` run its metaclass's methods (type's).
    if (resolve_class(file, operand, 0)) return out;
    if (auto mp = module_prefix(file, operand); mp && mp->second.empty()) return out;  // a module object
  }
  out.by_name = true;
  return out;
}

std::span<const std::string_view> CalleeResolver::protocol_companions(std::string_view dunder) {
  static const std::unordered_map<std::string_view, std::vector<std::string_view>> kCompanions = {
      {"__iter__", {"__next__"}},
      {"__contains__", {"__iter__", "__next__", "__getitem__"}},
      {"__bool__", {"__len__"}},
      {"__hash__", {"__eq__"}},
      {"__ne__", {"__eq__"}},
      {"__enter__", {"__exit__"}},
      {"__format__", {"__str__"}},
      {"__int__", {"__index__", "__trunc__"}},
      {"__float__", {"__index__"}},
      {"__reversed__", {"__len__", "__getitem__"}},
  };
  auto it = kCompanions.find(dunder);
  if (it == kCompanions.end()) return {};
  return it->second;
}

const std::vector<BodyRef>& CalleeResolver::methods_named(std::string_view name) const {
  static const std::vector<BodyRef> kNone;
  auto it = methods_by_name_.find(std::string(name));
  return it == methods_by_name_.end() ? kNone : it->second;
}

std::optional<std::pair<int, std::string>> CalleeResolver::find_class(int file, std::string_view dotted) const {
  auto c = resolve_class(file, dotted, 0);
  if (!c) return std::nullopt;
  return std::make_pair(c->file, c->name);
}

std::vector<BodyRef> CalleeResolver::class_method(int file, const std::string& qualified, std::string_view name) const {
  return method(ClassRef{file, qualified}, name, 0);
}

std::vector<BodyRef> CalleeResolver::decorator_bodies(int file, int in_function, const std::string& d) const {
  if (d.empty()) return {};
  if (!d.ends_with("()")) return resolve_call(file, in_function, d);
  // What the factory returns is the decorator: an instance of a class
  // (`@override_settings(...)`) is applied by its __call__.
  const std::string_view factory = std::string_view(d).substr(0, d.size() - 2);
  if (!simulator_ && factory.find('.') == std::string_view::npos)
    if (auto c = resolve_class(file, factory, 0)) return method(*c, "__call__", 0);
  std::vector<BodyRef> bodies;
  for (BodyRef f : resolve_call(file, in_function, factory)) {
    for (const std::string& r : files_[f.file].facts.functions[f.function].returns)
      append(bodies, lookup(f.file, r, 0));
  }
  return bodies;
}

std::vector<BodyRef> CalleeResolver::wrappers(int file, const FunctionInfo& fn) const {
  // A first-party descriptor class as decorator (`@classonlymethod`): getting
  // the attribute runs its __get__ before the call.
  std::vector<BodyRef> out = descriptors(file, fn);
  for (const std::string& d : fn.decorators) {
    for (BodyRef db : decorator_bodies(file, -1, d)) {
      const FunctionInfo& deco = files_[db.file].facts.functions[db.function];
      for (const std::string& r : deco.returns) {
        if (!r.starts_with(deco.qualified_name + ".")) continue;  // returns the function itself, or another
        append(out, lookup(db.file, r, 0));
      }
    }
  }
  return out;
}

bool CalleeResolver::decorators_call(int file, const std::vector<std::string>& decorators, int in_function) const {
  for (const std::string& d : decorators) {
    for (BodyRef b : decorator_bodies(file, in_function, d)) {
      const FunctionInfo& fn = files_[b.file].facts.functions[b.function];
      std::size_t arg = is_method(fn) ? 1 : 0;  // a class used as decorator: __init__(self, fn)
      if (fn.param_count() <= arg) continue;
      const std::string& p = fn.param(arg);
      for (const Event& e : fn.events)
        if (e.kind == Event::Kind::Call && e.name == p) return true;
    }
  }
  return false;
}

std::optional<BodyRef> CalleeResolver::module_getattr(ModuleId m, std::string_view name) const {
  int file = modules_[m].file;
  if (file < 0 || !files_[file].analysed) return std::nullopt;
  const auto& ix = index_[file];
  auto f = ix.functions.find("__getattr__");
  if (f == ix.functions.end() || ix.defined.count(std::string(name))) return std::nullopt;
  if (modules_.find(modules_[m].name + "." + std::string(name))) return std::nullopt;  // a submodule
  return BodyRef{file, f->second.back()};
}

namespace {

// Walks, for one module at a time, the bodies its module-level code runs.
class ReachWalker {
 public:
  ReachWalker(const std::vector<FileAnalysis>& files, const ModuleIndex& modules, const CalleeResolver& resolver,
              Reachability& r)
      : files_(files), modules_(modules), resolver_(resolver), r_(r) {
    seen_.resize(files.size());
    step_of_.resize(files.size());
    first_event_.resize(files.size());
    std::uint32_t events = 0;
    for (std::size_t f = 0; f < files.size(); ++f) {
      const ModuleFacts& facts = files[f].facts;
      seen_[f].assign(facts.functions.size(), 0);
      step_of_[f].assign(facts.functions.size(), -1);
      first_event_[f].reserve(facts.functions.size() + 1);
      first_event_[f].push_back(events);
      events += static_cast<std::uint32_t>(facts.events.size());
      for (const FunctionInfo& fn : facts.functions) {
        first_event_[f].push_back(events);
        events += static_cast<std::uint32_t>(fn.events.size());
      }
    }
    resolved_.assign(events, false);
  }

  // The steps of module `file`; also marks the union in r_ and charges imports.
  std::vector<ReachStep> walk(int file) {
    ++stamp_;
    steps_.clear();
    exact_.clear();
    assumed_.clear();
    root_ = file;
    lookups_.erase(file);
    visit(file, -1, files_[file].facts.events, -1, false);
    for (;;) {
      int s;
      if (!exact_.empty()) {
        s = exact_.front();
        exact_.pop_front();
      } else if (!assumed_.empty()) {
        s = assumed_.front();
        assumed_.pop_front();
      } else {
        break;
      }
      BodyRef b = steps_[s].body;
      // A protocol method assumed by name is listed, not walked: following
      // what every first-party `__eq__` calls pinned code nothing made an
      // instance for (SymPy's interval arithmetic).
      if (steps_[s].assumed && steps_[s].call.ends_with(" (operator)")) continue;
      visit(b.file, b.function, files_[b.file].facts.functions[b.function].events, s, steps_[s].assumed);
    }
    return std::move(steps_);
  }

 private:
  struct Resolved {
    std::vector<BodyRef> bodies;
    bool assumed = false;
    std::vector<BodyRef> overrides;  // assumed: subclasses' versions of a self./cls. method
  };

  // What an event resolves to, computed once (the same event is visited once
  // per module whose walk reaches its body) and kept only when it is
  // something: most events (calls of builtins and of other packages'
  // functions, plain reads) resolve to nothing and are only marked.
  struct CallMemo {
    Resolved call;
    std::optional<CalleeResolver::PartialArguments> partial;
    std::span<const CallArgument> arguments;  // the call's
    // A call of a value another walk may have bound (bound_key): "" if none.
    std::string bound_key;
    std::string_view rest;  // of the call's name, after the bound value
  };
  struct UseMemo {
    CalleeResolver::AttributeRead read;
    std::optional<BodyRef> module_getattr;
  };
  // Event `index` of body `function` (-1: the module body) of `file`, numbered
  // over the whole tree.
  std::uint32_t event_id(int file, int function, std::uint32_t index) const {
    return first_event_[file][function + 1] + index;
  }
  template <class T, class Make>
  const T* memo(std::unordered_map<std::uint32_t, T>& kept, std::uint32_t id, Make make) {
    if (resolved_[id]) {
      auto it = kept.find(id);
      return it == kept.end() ? nullptr : &it->second;
    }
    resolved_[id] = true;
    std::optional<T> v = make();
    if (!v) return nullptr;
    return &kept.emplace(id, std::move(*v)).first->second;
  }

  const CallMemo* call_memo(int file, int function, const Event& e, std::uint32_t event) {
    return memo(calls_, event_id(file, function, event), [&]() -> std::optional<CallMemo> {
      CallMemo m{{resolver_.resolve_call(file, function, e.name), false, {}}, std::nullopt, {}, {}, {}};
      if (m.call.bodies.empty()) {
        m.call.bodies = resolver_.assume_call(file, function, e.name);
        m.call.assumed = !m.call.bodies.empty();
      }
      m.call.overrides = resolver_.overrides(file, function, e.name);
      if (m.call.bodies.empty()) std::tie(m.bound_key, m.rest) = bound_key(file, function, e.name);
      if (m.call.bodies.empty() && m.call.overrides.empty() && m.bound_key.empty()) return std::nullopt;
      m.arguments = arguments_of(files_[file].facts, function, event);
      if (e.name.find('.') == std::string::npos) m.partial = resolver_.partial_arguments(file, e.name);
      return m;
    });
  }

  // Where bind/stored record a value and bound_key looks it up: a def's
  // parameter, or an attribute a class's method stores a parameter in (the
  // only keys with a '.').
  static std::string parameter_key(int file, int function, std::string_view param) {
    return std::to_string(file) + ',' + std::to_string(function) + ',' + std::string(param);
  }
  static std::string attribute_key(int file, const std::string& class_name, std::string_view attr) {
    return std::to_string(file) + ',' + class_name + '.' + std::string(attr);
  }

  // A call in body `function` of a value that the walk reaching the body
  // may not have bound, since another module's code passed it: a parameter
  // of an enclosing def (`middleware_class(view_func)` in a closure of
  // `make_middleware_decorator(middleware_class)`), keyed "file,def,param",
  // or, in a method, an attribute of self ("file,Class.attr"). Gives the key
  // and the rest of the name after the value ("" and "" for other calls).
  std::pair<std::string, std::string_view> bound_key(int file, int function, std::string_view name) const {
    if (function < 0) return {};
    const ModuleFacts& facts = files_[file].facts;
    const FunctionInfo& fn = facts.functions[function];
    const std::string_view head = name.substr(0, name.find('.'));
    if (fn.bound_otherwise(head)) {
      if (!is_method(fn) || fn.param_count() == 0 || head != fn.param(0) || head.size() == name.size()) return {};
      std::string_view attr = name.substr(head.size() + 1);
      attr = attr.substr(0, attr.find('.'));
      return {attribute_key(file, fn.class_name, attr), name.substr(head.size() + 1 + attr.size())};
    }
    for (int g : enclosing_functions(facts, function)) {
      const FunctionInfo& outer = facts.functions[g];
      if (!outer.bound_otherwise(head)) continue;
      if (!outer.has_param(head)) return {};
      return {parameter_key(file, g, head), name.substr(head.size())};
    }
    return {};
  }

  // A value bound, by some walk, where bound_key looks: kept over all walks.
  void record_bound(std::string key, const std::string& value, int vfile, int vfunction) {
    std::vector<BoundValue>& values = bound_[std::move(key)];
    for (const BoundValue& v : values)
      if (v.value == value && v.file == vfile && v.function == vfunction) return;
    values.push_back({value, vfile, vfunction});
  }

  // What a call of a bound value (CallMemo::bound_key) may run: every value
  // some walk bound there so far, assumed (as a closure's or a stored
  // callable's is in the walk that binds it). The walk remembers how many it
  // saw, so that compute_reachability walks its module again when a later
  // walk binds more.
  void bound_elsewhere(const CallMemo& m, const Event& e, int parent) {
    auto it = bound_.find(m.bound_key);
    const std::size_t n = it == bound_.end() ? 0 : it->second.size();
    lookups_[root_].emplace_back(m.bound_key, n);
    const bool stored = m.bound_key.find('.') != std::string::npos;
    for (std::size_t i = 0; i < n; ++i) {
      const BoundValue v = it->second[i];  // a copy: reach may bind more
      const std::string call = std::string(e.name.substr(0, e.name.size() - m.rest.size())) + "=" + v.value +
                               (stored ? " (stored)" : " (closure)");
      for (BodyRef t : resolver_.resolve_call(v.file, v.function, v.value + std::string(m.rest)))
        reach(t, parent, e.line, call, true);
    }
  }

 public:
  // The modules whose walk looked up a bound value (bound_elsewhere) that
  // later walks bound more of; their walks are to be done again.
  std::vector<int> stale_roots() const {
    std::vector<int> out;
    for (const auto& [root, seen] : lookups_) {
      const bool stale = std::any_of(seen.begin(), seen.end(), [&](const auto& l) {
        auto it = bound_.find(l.first);
        return it != bound_.end() && it->second.size() > l.second;
      });
      if (stale) out.push_back(root);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  void reach(BodyRef b, int parent, int line, std::string call, bool assumed) {
    // seen_: 2 * stamp_ once reached in this walk, + 1 once reached exactly.
    uint32_t& seen = seen_[b.file][b.function];
    if (seen == 2 * stamp_ + 1 || (seen == 2 * stamp_ && assumed)) return;
    int index;
    if (seen == 2 * stamp_) {
      // Assumed first (a closure, an untyped call), now reached exactly: the
      // step becomes exact and its body is walked again, following what an
      // assumed body leaves out.
      index = step_of_[b.file][b.function];
      steps_[index] = {b, parent, line, std::move(call), false};
    } else {
      index = static_cast<int>(steps_.size());
      steps_.push_back({b, parent, line, std::move(call), assumed});
      step_of_[b.file][b.function] = index;
    }
    seen = 2 * stamp_ + (assumed ? 0 : 1);
    (assumed ? assumed_ : exact_).push_back(index);
    // Calling a decorated function runs the wrapper its decorator returned.
    const FunctionInfo& fn = files_[b.file].facts.functions[b.function];
    if (!fn.decorators.empty()) {
      auto key = (std::uint64_t(b.file) << 32) | std::uint32_t(b.function);
      auto it = wrappers_.find(key);
      if (it == wrappers_.end()) it = wrappers_.emplace(key, resolver_.wrappers(b.file, fn)).first;
      for (BodyRef w : std::vector<BodyRef>(it->second))
        reach(w, index, fn.line, "wrapper of " + fn.qualified_name, assumed);
    }
    // The union: the first module to reach the body, exactly if any does.
    if (!r_.runs[b.file][b.function] || (!assumed && r_.assumed[b.file][b.function])) {
      r_.runs[b.file][b.function] = true;
      r_.assumed[b.file][b.function] = assumed;
      if (assumed) r_.assumption[b.file][b.function] = assumption_of(index);
      r_.reached_from[b.file][b.function] = root_;
      int s = index;  // the module-level line that started the chain
      while (steps_[s].parent >= 0) s = steps_[s].parent;
      r_.reached_line[b.file][b.function] = steps_[s].line;
    }
  }

  // The assumption that starts the assumed part of step s's chain, read
  // from the call the step records.
  Reachability::Assumption assumption_of(int s) const {
    while (steps_[s].parent >= 0 && steps_[steps_[s].parent].assumed) s = steps_[s].parent;
    const std::string& call = steps_[s].call;
    if (call.starts_with("closure over ") || call.ends_with(" (closure)")) return Reachability::Assumption::Closure;
    if (call.ends_with(" (override)")) return Reachability::Assumption::Override;
    if (call.ends_with(" (stored)")) return Reachability::Assumption::Stored;
    if (call.ends_with(" (__getattr__)")) return Reachability::Assumption::Getattr;
    if (call.ends_with(" (operator)")) return Reachability::Assumption::Operator;
    return Reachability::Assumption::Untyped;
  }

  void apply_factories(int file, int function, const std::vector<std::string>& decorators, int line, int parent,
                       bool assumed) {
    for (const std::string& d : decorators) {
      if (!d.ends_with("()")) continue;
      for (BodyRef b : resolver_.decorator_bodies(file, function, d)) reach(b, parent, line, "@" + d, assumed);
    }
  }

  // How many times a passed argument is followed into the next callee, and
  // how many defs nested in a callee are searched for calls of it.
  static constexpr int kMaxBindDepth = 3;
  static constexpr std::size_t kMaxNested = 64;

  // An argument as the callee sees it: its position moved by `shift` (after
  // what a partial bound, or without the partial's function).
  struct PassedArgument {
    const CallArgument* argument;
    int file, function;  // where its value is looked up
    int shift;
  };

  // What a callee runs of the dotted names passed to it (CallArgument): a
  // parameter that its body calls (`Pattern(route)`, `@decorator`, `cls.m()`)
  // runs what the caller passed for it (`_path(..., Pattern=RoutePattern)`),
  // or what a `functools.partial` bound (`path = partial(_path,
  // Pattern=RoutePattern)`, then `path(...)`). Only the callee's own body is
  // looked at: a parameter that it hands on, or that a nested def calls
  // later, is not followed.
  void pass_arguments(const CallMemo& m, int file, int function, const Event& e, const std::vector<BodyRef>& callees,
                      int parent, bool assumed) {
    if (!m.partial && m.arguments.empty()) return;
    std::vector<PassedArgument> passed;
    int shift = 0;  // positions the partial took
    if (const auto& p = m.partial) {
      for (const CallArgument* a : p->arguments) {
        passed.push_back({a, p->file, -1, -1});  // the partial's position 0 was the function
        shift = std::max(shift, a->position);
      }
    }
    for (const CallArgument& a : m.arguments) passed.push_back({&a, file, function, shift});
    if (passed.empty()) return;
    for (BodyRef b : callees) {
      for (const PassedArgument& p : passed) {
        const CallArgument& a = *p.argument;
        if (a.value.starts_with('$')) continue;  // the caller's parameter: bound where the caller is called
        const std::string_view param = parameter(b, a.position, a.keyword, p.shift);
        if (param.empty()) continue;
        // What binding the parameter runs depends on neither the walk nor the
        // call site: found once, replayed for each.
        std::string key = std::to_string(b.file) + ',' + std::to_string(b.function) + ',' + std::string(param) +
                          ',' + std::to_string(p.file) + ',' + std::to_string(p.function) + ',' + a.value;
        auto it = binds_.find(key);
        if (it == binds_.end()) {
          std::vector<BindHit> hits;
          bind(b, param, a.value, p.file, p.function, hits, 0);
          it = binds_.emplace(std::move(key), std::move(hits)).first;
        }
        for (const BindHit& h : it->second) reach(h.body, parent, e.line, h.call, assumed || h.assumed);
      }
    }
  }

  // The __getattr__ of the class of the instance passed first to a
  // getattr()/hasattr() call (event `event` of the body).
  std::vector<BodyRef> getattr_hooks(int file, int function, std::uint32_t event) const {
    for (const CallArgument& a : arguments_of(files_[file].facts, function, event)) {
      if (a.position != 0 || a.value.starts_with('$') || a.value.find('.') != std::string::npos) continue;
      const bool local = resolver_.local_binding(file, function, a.value).has_value();
      // The name is a string the facts do not keep: "?" is one no class defines.
      return resolver_.instance_attribute(file, function, a.value + ".?", local).assumed;
    }
    return {};
  }

  // The parameter of body b that an argument at `position` (moved by
  // `shift`) or by `keyword` binds, or "".
  std::string_view parameter(BodyRef b, int position, const std::string& keyword, int shift) const {
    const FunctionInfo& fn = files_[b.file].facts.functions[b.function];
    if (position < 0)
      return std::binary_search(fn.locals.begin(), fn.locals.end(), keyword) ? std::string_view(keyword) : "";
    // A method called on an object or a class: its first parameter is that.
    const int skip = is_method(fn) && fn.param_count() > 0 && (fn.param(0) == "self" || fn.param(0) == "cls") ? 1 : 0;
    const int i = position + shift + skip;
    return i >= 0 && static_cast<std::size_t>(i) < fn.param_count() ? std::string_view(fn.param(i)) : "";
  }

  // Parameter `param` of body b holds `value` (a dotted name of (vfile,
  // vfunction)): b's calls of it run what value names; the defs nested in b
  // that call it (closures) may run later, so they and what they call are
  // assumed; b handing it on to another call binds that callee's parameter in
  // turn (a few levels).
  struct BindHit {
    BodyRef body;
    std::string call;
    bool assumed = false;  // a closure, or what it calls
  };
  void bind(BodyRef b, std::string_view param, const std::string& value, int vfile, int vfunction,
            std::vector<BindHit>& hits, int depth) {
    if (param.empty() || depth > kMaxBindDepth) return;
    record_bound(parameter_key(b.file, b.function, param), value, vfile, vfunction);
    const auto& facts = files_[b.file].facts;
    auto calls_in = [&](int function, bool closure) {
      bool made = false;
      for (const Event& c : facts.functions[function].events) {
        if (c.kind != Event::Kind::Call || !c.name.starts_with(param)) continue;
        std::string_view rest = std::string_view(c.name).substr(param.size());
        if (!rest.empty() && rest.front() != '.') continue;
        // The closure itself was made to be called (a decorator's wrapper).
        if (closure && !made) hits.push_back({{b.file, function}, "closure over " + std::string(param) + "=" + value, true});
        made = true;
        for (BodyRef t : resolver_.resolve_call(vfile, vfunction, value + std::string(rest)))
          hits.push_back({t, std::string(param) + "=" + value + (closure ? " (closure)" : ""), closure});
      }
    };
    calls_in(b.function, false);
    stored(b, param, value, vfile, vfunction, hits);
    const std::span<const int> direct = resolver_.defined_in(b.file, b.function);
    std::vector<int> nested(direct.begin(), direct.end());
    for (std::size_t i = 0; i < nested.size() && i < kMaxNested; ++i) {
      // A nested def that rebinds the name has its own.
      if (facts.functions[nested[i]].bound_otherwise(param)) continue;
      calls_in(nested[i], true);
      for (int n : resolver_.defined_in(b.file, nested[i])) nested.push_back(n);
    }
    // `other(param)`: handed on, by b itself or, later, by a def nested in it
    // (a closure: what that callee runs is assumed).
    const std::string handed = "$" + std::string(param);
    auto hand_on = [&](int function, bool closure) {
      for (const CallArgument& a : arguments_of(facts, function)) {
        if (a.value != handed) continue;
        const Event& e = facts.functions[function].events[a.event];
        for (BodyRef c : resolver_.resolve_call(b.file, function, e.name)) {
          const std::size_t from = hits.size();
          bind(c, parameter(c, a.position, a.keyword, 0), value, vfile, vfunction, hits, depth + 1);
          if (closure)
            for (std::size_t i = from; i < hits.size(); ++i) {
              hits[i].assumed = true;
              if (!hits[i].call.ends_with(" (closure)")) hits[i].call += " (closure)";
            }
        }
      }
    };
    hand_on(b.function, false);
    for (std::size_t i = 0; i < nested.size() && i < kMaxNested; ++i)
      if (!facts.functions[nested[i]].bound_otherwise(param)) hand_on(nested[i], true);
  }

  // Parameter `param` of method b kept on the instance (StoredParameter):
  // when a method of b's class calls `self.attr()`, what value names may run
  // whenever that method does, so it is assumed. Only the class's own methods
  // in b's file are searched (a base class elsewhere calling it is missed).
  void stored(BodyRef b, std::string_view param, const std::string& value, int vfile, int vfunction,
              std::vector<BindHit>& hits) {
    const auto& facts = files_[b.file].facts;
    const FunctionInfo& fn = facts.functions[b.function];
    for (const StoredParameter& s : facts.stored_parameters) {
      if (s.function != b.function || s.parameter != param) continue;
      record_bound(attribute_key(b.file, fn.class_name, s.attribute), value, vfile, vfunction);
      const bool called = std::any_of(facts.functions.begin(), facts.functions.end(), [&](const FunctionInfo& m) {
        if (m.class_name != fn.class_name || m.param_count() == 0) return false;
        const std::string call = m.param(0) + "." + s.attribute;
        return std::any_of(m.events.begin(), m.events.end(),
                           [&](const Event& e) { return e.kind == Event::Kind::Call && e.name == call; });
      });
      if (!called) continue;
      for (BodyRef t : resolver_.resolve_call(vfile, vfunction, value))
        hits.push_back({t, "self." + s.attribute + "=" + value + " (stored)", true});
    }
  }

  // What an operator, builtin or statement runs (a Protocol event): the
  // methods of the operand's class when the model knows it, else every
  // first-party method of that name, assumed; from an assumed body, only the
  // former (one level of assumption). A name assumed once in a walk is
  // assumed already for every later site.
  void protocol(int file, int function, const Event& e, std::uint32_t index, int parent, bool assumed) {
    const CalleeResolver::ProtocolCall* found =
        memo(protocols_, event_id(file, function, index), [&]() -> std::optional<CalleeResolver::ProtocolCall> {
      auto p = resolver_.protocol(file, function, e.name);
      if (p.exact.empty() && p.overrides.empty() && !p.by_name) return std::nullopt;
      return p;
    });
    if (!found) return;
    const CalleeResolver::ProtocolCall& p = *found;
    for (BodyRef b : p.exact) reach(b, parent, e.line, e.name, assumed);
    if (assumed) return;
    for (BodyRef b : p.overrides) reach(b, parent, e.line, e.name + " (override)", true);
    if (!p.by_name) return;
    const std::string_view name = std::string_view(e.name).substr(e.name.rfind('.') + 1);
    auto assume = [&](std::string_view dunder) {
      uint32_t& fired = fired_[dunder];
      if (fired == stamp_) return;
      fired = stamp_;
      for (BodyRef b : resolver_.methods_named(dunder)) reach(b, parent, e.line, e.name + " (operator)", true);
    };
    assume(name);
    for (std::string_view d : CalleeResolver::protocol_companions(name)) assume(d);
  }

  // The events of one body (function -1: the module body of `file`).
  void visit(int file, int function, const std::vector<Event>& events, int parent, bool assumed) {
    const FileAnalysis& fa = files_[file];
    for (const Event& e : events) {
      switch (e.kind) {
        case Event::Kind::Call: {
          const auto index = static_cast<std::uint32_t>(&e - events.data());
          const CallMemo* m = call_memo(file, function, e, index);
          // `from_assumed`: the call sits in a body that is itself only assumed
          // to run; its unresolved calls are not followed, nor overrides (one
          // level of assumption: each further level multiplied the assumed set
          // on SymPy until it held everything). Nor a method called on what a
          // call returned (`collect(...).as_coefficient()`, Event::on_result):
          // followed from assumed bodies, those pinned SymPy's limits through
          // a chain from an assumed `evalf`, and 2 more modules failed in
          // CPython after the fix.
          const bool followed = m && !(assumed && (m->call.assumed || e.on_result));
          if (followed) {
            const Resolved& r = m->call;
            for (BodyRef b : r.bodies) reach(b, parent, e.line, e.name, assumed || r.assumed);
            if (!assumed)
              for (BodyRef b : r.overrides) reach(b, parent, e.line, e.name + " (override)", true);
            if (!r.bodies.empty()) pass_arguments(*m, file, function, e, r.bodies, parent, assumed || r.assumed);
          }
          if (m && !m->bound_key.empty()) bound_elsewhere(*m, e, parent);
          // `getattr(obj, "name", default)` on an instance: its class's
          // __getattr__ may serve the name (assumed, as for `obj.name`).
          if ((!followed || m->call.bodies.empty()) && (e.name == "getattr" || e.name == "hasattr"))
            for (BodyRef g : getattr_hooks(file, function, index))
              reach(g, parent, e.line, e.name + " (__getattr__)", true);
          break;
        }
        case Event::Kind::Import: {
          if (function >= 0) r_.charged_imports.push_back({root_, file, e.import, assumed});
          // `from m import name` that m's module __getattr__ serves.
          if (e.import < 0 || static_cast<std::size_t>(e.import) >= fa.resolved.size()) break;
          for (const ImportTarget& t : fa.resolved[e.import].targets) {
            if (t.reason != EdgeReason::NameFrom || t.name == "*") continue;
            if (auto g = resolver_.module_getattr(t.module, t.name))
              reach(*g, parent, e.line, "from " + modules_[t.module].name + " import " + t.name, assumed);
          }
          break;
        }
        case Event::Kind::Use: {
          if (e.name.find('.') == std::string::npos) break;
          // `obj.name` on an instance: a property's getter runs; the
          // __getattr__ of obj's class may serve a name it lacks (assumed).
          const auto index = static_cast<std::uint32_t>(&e - events.data());
          const UseMemo* m = memo(uses_, event_id(file, function, index), [&]() -> std::optional<UseMemo> {
            UseMemo u{resolver_.instance_attribute(file, function, e.name, e.local), std::nullopt};
            // `mod.name` that mod's module __getattr__ serves.
            if (auto mp = e.local ? std::nullopt : resolver_.module_prefix(file, e.name); mp && !mp->second.empty())
              u.module_getattr = resolver_.module_getattr(mp->first, mp->second.substr(0, mp->second.find('.')));
            if (u.read.exact.empty() && u.read.assumed.empty() && u.read.overrides.empty() && !u.module_getattr)
              return std::nullopt;
            return u;
          });
          if (!m) break;
          for (BodyRef g : m->read.exact) reach(g, parent, e.line, e.name + " (property)", assumed);
          for (BodyRef g : m->read.assumed) reach(g, parent, e.line, e.name + " (__getattr__)", true);
          if (!assumed)
            for (BodyRef g : m->read.overrides) reach(g, parent, e.line, e.name + " (override)", true);
          if (m->module_getattr) reach(*m->module_getattr, parent, e.line, e.name, assumed);
          break;
        }
        case Event::Kind::Protocol:
          protocol(file, function, e, static_cast<std::uint32_t>(&e - events.data()), parent, assumed);
          break;
        case Event::Kind::Bind: break;
      }
    }
    // The defs this body makes: what a decorator factory returned is applied
    // (a plain decorator's call is an event already), and a decorator that
    // calls what it decorates runs it.
    for (int d : resolver_.defined_in(file, function)) {
      const FunctionInfo& fn = fa.facts.functions[d];
      if (fn.decorators.empty()) continue;
      apply_factories(file, function, fn.decorators, fn.line, parent, assumed);
      if (resolver_.decorators_call(file, fn.decorators, function))
        reach({file, d}, parent, fn.line, "@" + fn.decorators.front() + " calls " + std::string(fn.name()), assumed);
    }
    // The same for classes; a class decorator that calls the class instantiates it.
    for (int k : resolver_.classes_in(file, function)) {
      const ClassInfo& c = fa.facts.classes[k];
      if (c.decorators.empty()) continue;
      apply_factories(file, function, c.decorators, c.line, parent, assumed);
      if (!resolver_.decorators_call(file, c.decorators, function)) continue;
      for (BodyRef b : resolver_.resolve_call(file, function, c.qualified_name))
        reach(b, parent, c.line, "@" + c.decorators.front() + " calls " + c.qualified_name, assumed);
    }
  }

  const std::vector<FileAnalysis>& files_;
  const ModuleIndex& modules_;
  const CalleeResolver& resolver_;
  Reachability& r_;
  std::vector<std::vector<uint32_t>> seen_;
  std::vector<std::vector<int>> step_of_;  // the body's step in the current walk
  uint32_t stamp_ = 0;
  int root_ = -1;
  std::vector<ReachStep> steps_;
  std::deque<int> exact_, assumed_;
  // By event_id: only what resolves to something is kept; resolved_ marks
  // every event resolved already.
  std::vector<std::vector<std::uint32_t>> first_event_;  // [file][function + 1]
  std::vector<bool> resolved_;
  std::unordered_map<std::uint32_t, CallMemo> calls_;
  std::unordered_map<std::uint32_t, UseMemo> uses_;
  std::unordered_map<std::uint32_t, CalleeResolver::ProtocolCall> protocols_;
  std::unordered_map<std::string, std::vector<BindHit>> binds_;  // pass_arguments' bind, by callee, parameter, value
  std::unordered_map<std::string_view, uint32_t> fired_;  // dunder -> the walk (stamp_) that assumed it
  std::unordered_map<std::uint64_t, std::vector<BodyRef>> wrappers_;
  // Values bind/stored saw bound, by bound_key, over all walks so far.
  struct BoundValue {
    std::string value;
    int file, function;  // where value is looked up
  };
  std::unordered_map<std::string, std::vector<BoundValue>> bound_;
  // Per module, each bound_elsewhere lookup of its walk: key and how many values it saw.
  std::unordered_map<int, std::vector<std::pair<std::string, std::size_t>>> lookups_;
};

}  // namespace

const char* Reachability::describe(Assumption a) {
  switch (a) {
    case Assumption::Untyped: return "a method call on an object whose class it does not know may reach it";
    case Assumption::Override: return "a subclass's override may be what `self.m()` runs";
    case Assumption::Getattr: return "a __getattr__ hook may serve an attribute read";
    case Assumption::Closure: return "a closure made at import may call it, later or never";
    case Assumption::Stored: return "an object made at import keeps it and a method of its class may call it";
    case Assumption::Operator:
      return "an operator or builtin (`a + b`, `x == y`, `len(x)`, `for v in x`) on an object whose class it does "
             "not know may run it";
  }
  return "";
}

Reachability compute_reachability(const std::vector<FileAnalysis>& files, const ModuleIndex& modules,
                                  bool keep_steps, const std::vector<char>* roots) {
  const CalleeResolver resolver(files, modules);
  return compute_reachability(files, modules, resolver, keep_steps, roots);
}

Reachability compute_reachability(const std::vector<FileAnalysis>& files, const ModuleIndex& modules,
                                  const CalleeResolver& resolver, bool keep_steps, const std::vector<char>* roots) {
  Reachability r;
  r.runs.resize(files.size());
  r.assumed.resize(files.size());
  r.assumption.resize(files.size());
  r.reached_from.resize(files.size());
  r.reached_line.resize(files.size());
  for (std::size_t f = 0; f < files.size(); ++f) {
    r.runs[f].assign(files[f].facts.functions.size(), false);
    r.assumed[f].assign(files[f].facts.functions.size(), false);
    r.assumption[f].assign(files[f].facts.functions.size(), Reachability::Assumption::Untyped);
    r.reached_from[f].assign(files[f].facts.functions.size(), -1);
    r.reached_line[f].assign(files[f].facts.functions.size(), 0);
  }
  if (keep_steps) r.steps.resize(files.size());
  ReachWalker walker(files, modules, resolver, r);
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (!files[f].analysed || (roots && !(*roots)[f])) continue;
    auto steps = walker.walk(static_cast<int>(f));
    if (keep_steps) r.steps[f] = std::move(steps);
  }
  // A module walked before another bound a value its walk calls (a closure's
  // parameter, a stored callable) is walked once more: the union only grows,
  // its own steps and charged imports are replaced. Values bound only in
  // this second pass are not looked for again.
  for (int f : walker.stale_roots()) {
    std::erase_if(r.charged_imports, [&](const ChargedImport& c) { return c.charged_file == f; });
    auto steps = walker.walk(f);
    if (keep_steps) r.steps[f] = std::move(steps);
  }
  return r;
}

}  // namespace cyclefix
