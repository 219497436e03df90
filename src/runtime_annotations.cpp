#include "runtime_annotations.hpp"

#include "analysis.hpp"
#include "reachability.hpp"

namespace cyclefix {

namespace {

// Deep enough for real hierarchies (Django's model bases are 4 deep), small
// enough that a cycle of bases the resolver cannot see through stops.
constexpr int kMaxBaseDepth = 12;

std::string strip_call(const std::string& d) { return d.ends_with("()") ? d.substr(0, d.size() - 2) : d; }

}  // namespace

const std::vector<std::string_view>& default_runtime_base_classes() {
  // Classes (and metaclasses) whose subclasses have their annotations evaluated
  // when the class is made or first used.
  static const std::vector<std::string_view> v = {
      "pydantic.BaseModel",
      "pydantic.main.BaseModel",
      "pydantic.RootModel",
      "pydantic.root_model.RootModel",
      "pydantic.v1.BaseModel",
      "pydantic.BaseSettings",
      "pydantic_settings.BaseSettings",
      "pydantic._internal._model_construction.ModelMetaclass",
      "sqlmodel.SQLModel",
      "msgspec.Struct",
      "typing.NamedTuple",
      "typing.TypedDict",
      "typing_extensions.NamedTuple",
      "typing_extensions.TypedDict",
      "sqlalchemy.orm.DeclarativeBase",
      "sqlalchemy.orm.DeclarativeBaseNoMeta",
      "sqlalchemy.orm.MappedAsDataclass",
      "sqlalchemy.orm.decl_api.DeclarativeBase",
      "sqlalchemy.orm.decl_api.DeclarativeMeta",
      "sqlalchemy.orm.DeclarativeMeta",
  };
  return v;
}

const std::vector<std::string_view>& default_runtime_decorators() {
  // Decorators that evaluate the annotations of what they decorate.
  static const std::vector<std::string_view> v = {
      "pydantic.dataclasses.dataclass",
      "pydantic.validate_call",
      "pydantic.validate_arguments",
      "attrs.define",
      "attrs.frozen",
      "attrs.mutable",
      "attr.s",
      "attr.attrs",
      "attr.define",
      "attr.frozen",
      "attr.mutable",
      "attr.dataclass",
      "typeguard.typechecked",
      "beartype.beartype",
  };
  return v;
}

RuntimeAnnotations::RuntimeAnnotations(const Analysis& a, const CalleeResolver& resolver,
                                       const RuntimeAnnotationOptions& options)
    : a_(a), resolver_(resolver), classes_(a.files.size()), functions_(a.files.size()) {
  for (auto s : default_runtime_base_classes()) bases_.emplace(s);
  for (auto s : default_runtime_decorators()) decorators_.emplace(s);
  bases_.insert(options.base_classes.begin(), options.base_classes.end());
  decorators_.insert(options.decorators.begin(), options.decorators.end());
  for (std::size_t f = 0; f < a.files.size(); ++f) {
    const FileAnalysis& fa = a.files[f];
    if (!fa.analysed) continue;
    const int file = static_cast<int>(f);
    for (const ClassInfo& c : fa.facts.classes) class_reason(file, c.qualified_name, 0);
    for (std::size_t i = 0; i < fa.facts.functions.size(); ++i) {
      const FunctionInfo& fn = fa.facts.functions[i];
      for (const std::string& d : fn.decorators) {
        // The decorator expression is evaluated in the scope enclosing the def.
        std::string why = decorator_reason(file, innermost_function(fa.facts, fn.begin), d);
        if (why.empty()) continue;
        functions_[f][static_cast<int>(i)] = "`" + fn.qualified_name + "` (" + where(file, fn.line) + ") is " + why;
        break;
      }
    }
  }
}

std::string RuntimeAnnotations::where(int file, int line) const {
  return a_.files[file].source.display + ":" + std::to_string(line);
}

std::string RuntimeAnnotations::full_name(int file, std::string_view dotted) const {
  const FileAnalysis& fa = a_.files[file];
  const auto dot = dotted.find('.');
  const std::string_view head = dotted.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? std::string_view() : dotted.substr(dot);
  for (std::size_t i = 0; i < fa.facts.imports.size(); ++i) {
    const ImportStatement& st = fa.facts.imports[i];
    if (!st.scope.empty() || st.star) continue;
    for (const ImportAlias& al : st.names) {
      if (al.bound_name(st.is_from) != head) continue;
      if (st.is_from) {
        const std::string& m = i < fa.resolved.size() && !fa.resolved[i].absolute_module.empty()
                                   ? fa.resolved[i].absolute_module
                                   : st.module;
        return m + "." + al.name + std::string(rest);
      }
      if (!al.asname.empty()) return al.name + std::string(rest);
      return std::string(dotted);  // `import a.b` binds `a`: `a.b.C` is already whole
    }
  }
  return std::string(dotted);
}

bool RuntimeAnnotations::body_reads(const BodyRef& b, int depth) {
  auto [it, fresh] = reads_.try_emplace({b.file, b.function}, 0);
  if (!fresh) return it->second == 2;
  const FunctionInfo& fn = a_.files[b.file].facts.functions[b.function];
  bool yes = fn.reads_annotations;
  // A helper the body calls (`_collect_fields(cls)`) may do the reading.
  if (!yes && depth < 3) {
    for (const Event& e : fn.events) {
      if (e.kind != Event::Kind::Call) continue;
      for (const BodyRef& c : resolver_.resolve_call(b.file, b.function, e.name)) {
        if (body_reads(c, depth + 1)) {
          yes = true;
          break;
        }
      }
      if (yes) break;
    }
  }
  reads_[{b.file, b.function}] = yes ? 2 : 1;
  return yes;
}

std::string RuntimeAnnotations::decorator_reason(int file, int in_function, const std::string& decorator) {
  if (decorator.empty()) return "";
  const std::string written = strip_call(decorator);
  const std::string full = full_name(file, written);
  if (decorators_.count(full)) return "decorated with `@" + full + "`";
  if (decorators_.count(written)) return "decorated with `@" + written + "`";
  for (const BodyRef& b : resolver_.decorator_bodies(file, in_function, decorator)) {
    if (body_reads(b, 0)) {
      const FunctionInfo& d = a_.files[b.file].facts.functions[b.function];
      return "decorated with `@" + written + "`, which reads annotations at run time (" + where(b.file, d.line) + ")";
    }
  }
  return "";
}

const std::string* RuntimeAnnotations::class_reason(int file, const std::string& qualified, int depth) {
  auto [it, fresh] = classes_[file].try_emplace(qualified);
  if (!fresh || depth > kMaxBaseDepth) return it->second.empty() ? nullptr : &it->second;
  const ModuleFacts& facts = a_.files[file].facts;
  const ClassInfo* info = nullptr;
  for (const ClassInfo& c : facts.classes)
    if (c.qualified_name == qualified) info = &c;
  if (!info) return nullptr;
  const std::string self = "`" + qualified + "` (" + where(file, info->line) + ")";
  std::string why;
  const int enclosing = -1;  // decorators of nested classes resolve like module-level ones; good enough
  for (const std::string& d : info->decorators) {
    std::string r = decorator_reason(file, enclosing, d);
    if (!r.empty()) {
      why = self + " is " + r;
      break;
    }
  }
  for (std::size_t i = 0; why.empty() && i <= info->bases.size(); ++i) {
    // The bases, then the metaclass (which makes the class, so it is "a base" here).
    const bool meta = i == info->bases.size();
    const std::string& b = meta ? info->metaclass : info->bases[i];
    if (b.empty()) continue;
    const std::string full = full_name(file, b);
    const char* rel = meta ? " has metaclass `" : " derives from `";
    if (bases_.count(full)) {
      why = self + rel + full + "`";
      break;
    }
    auto c = resolver_.find_class(file, b);
    if (!c) continue;
    if (const std::string* r = class_reason(c->first, c->second, depth + 1)) {
      why = self + rel + b + "`, and " + *r;
      break;
    }
    // The base's hook runs for each subclass (not for the base itself).
    static const std::vector<const char*> kMetaHooks = {"__new__", "__init__", "__call__"};
    static const std::vector<const char*> kBaseHooks = {"__init_subclass__"};
    for (const char* hook : meta ? kMetaHooks : kBaseHooks) {
      for (const BodyRef& h : resolver_.class_method(c->first, c->second, hook)) {
        if (!body_reads(h, 0)) continue;
        const FunctionInfo& fn = a_.files[h.file].facts.functions[h.function];
        why = self + rel + b + "`, whose " + hook + " reads annotations at run time (" + where(h.file, fn.line) + ")";
        break;
      }
      if (!why.empty()) break;
    }
  }
  if (why.empty()) {
    // SQLAlchemy 2.0 declarative columns: `x: Mapped[int]` is evaluated by the mapper.
    for (const NameUse& u : facts.uses) {
      if (u.kind != UseKind::Annotation || facts.scope_name(u) != qualified) continue;
      const std::string full = full_name(file, u.dotted);
      if (full.starts_with("sqlalchemy.") && full.ends_with(".Mapped")) {
        why = self + " declares `Mapped[...]` columns (" + where(file, u.line) + "), which SQLAlchemy evaluates";
        break;
      }
    }
  }
  it->second = std::move(why);  // std::map: `it` survived the insertions of the recursion
  return it->second.empty() ? nullptr : &it->second;
}

const std::string* RuntimeAnnotations::reason(int file, const NameUse& u) const {
  if (u.kind != UseKind::Annotation || std::string_view(u.where) == "TYPE_CHECKING block") return nullptr;
  const ModuleFacts& facts = a_.files[file].facts;
  // A parameter or return annotation: of the innermost def whose signature holds it.
  int sig = -1;
  for (std::size_t i = 0; i < facts.functions.size(); ++i) {
    const FunctionInfo& fn = facts.functions[i];
    if (fn.begin <= u.begin && u.begin < fn.body_begin && (sig < 0 || fn.begin >= facts.functions[sig].begin))
      sig = static_cast<int>(i);
  }
  if (sig >= 0) {
    auto it = functions_[file].find(sig);
    return it == functions_[file].end() ? nullptr : &it->second;
  }
  const std::string_view scope = facts.scope_name(u);
  if (scope.empty()) return nullptr;
  auto it = classes_[file].find(std::string(scope));
  return it == classes_[file].end() || it->second.empty() ? nullptr : &it->second;
}

}  // namespace cyclefix
