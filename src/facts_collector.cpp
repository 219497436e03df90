// Collects ModuleFacts from one tree-sitter tree in a single walk.
//
// The walk keeps a stack of Python scopes (module, class, function, lambda,
// comprehension). A function's local names are computed when the walk enters
// it, so that a name the function binds (parameter, assignment, import, ...)
// hides the module's import of the same name, as Python's compiler decides.
// Every identifier that resolves to the module scope is a candidate use; at the
// end only candidates naming a module-level import binding are kept.

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <unordered_set>

#include "facts.hpp"
#include "ts.hpp"

namespace cyclefix {

std::string_view to_string(ImportContext c) {
  switch (c) {
    case ImportContext::ModuleLevel: return "module";
    case ImportContext::TypeChecking: return "type-checking";
    case ImportContext::TypeCheckingElse: return "type-checking-else";
    case ImportContext::TryExcept: return "try";
    case ImportContext::ConditionalIf: return "conditional";
    case ImportContext::ClassBody: return "class";
    case ImportContext::FunctionBody: return "function";
  }
  return "?";
}

std::string_view to_string(UseKind k) {
  switch (k) {
    case UseKind::ImportTime: return "import-time";
    case UseKind::Deferred: return "deferred";
    case UseKind::Annotation: return "annotation";
  }
  return "?";
}

std::string ImportAlias::bound_name(bool is_from) const {
  if (!asname.empty()) return asname;
  if (is_from) return name;
  auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

std::vector<std::string> ImportStatement::bound_names() const {
  std::vector<std::string> out;
  if (star) return out;
  for (const auto& a : names) {
    auto n = a.bound_name(is_from);
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  }
  return out;
}

namespace {

using ts::field;
using ts::is;
using ts::type;

constexpr int kMaxDepth = 1500;

enum class ScopeKind { Module, Class, Function, Lambda, Comprehension };

struct Scope {
  ScopeKind kind;
  std::string qualified;       // "Foo.bar"
  std::string function;        // innermost enclosing function's qualified name
  std::unordered_set<std::string> locals;
  std::unordered_set<std::string> globals;
};

// The evaluation context of the node being visited.
struct Ctx {
  bool deferred = false;       // inside a function/lambda body
  bool annotation = false;     // inside an annotation
  bool local_var_annotation = false;  // `x: T` inside a function body: never evaluated
  bool type_checking = false;  // inside `if TYPE_CHECKING:`
  bool tc_else = false;        // inside the else branch of such an if
  bool in_try = false;
  bool guards_import_error = false;
  bool conditional = false;    // other if/for/while/with at module level
  bool class_body = false;     // directly in a class body (not deeper function)
  const char* where = "module level";
};

bool is_comprehension(TSNode n) {
  auto t = type(n);
  return t == "list_comprehension" || t == "set_comprehension" ||
         t == "dictionary_comprehension" || t == "generator_expression";
}

// Exception names that make a try/except swallow a failing import.
bool catches_import_error(TSNode handler, std::string_view src) {
  uint32_t nc = ts_node_named_child_count(handler);
  bool has_value = false;
  for (uint32_t i = 0; i < nc; ++i) {
    TSNode c = ts_node_named_child(handler, i);
    if (is(c, "block")) continue;
    has_value = true;
    auto t = ts::text(c, src);
    for (const char* name : {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}) {
      if (t.find(name) != std::string_view::npos) return true;
    }
  }
  return !has_value;  // bare `except:`
}

// `TYPE_CHECKING`, `typing.TYPE_CHECKING`, `t.TYPE_CHECKING`; 1 = true branch guarded,
// -1 = `not TYPE_CHECKING`, 0 = not a TYPE_CHECKING test.
int type_checking_test(TSNode cond, std::string_view src) {
  if (is(cond, "parenthesized_expression") && ts_node_named_child_count(cond) == 1)
    return type_checking_test(ts_node_named_child(cond, 0), src);
  if (is(cond, "identifier")) return ts::text(cond, src) == "TYPE_CHECKING" ? 1 : 0;
  if (is(cond, "attribute")) {
    return ts::text(field(cond, "attribute"), src) == "TYPE_CHECKING" ? 1 : 0;
  }
  if (is(cond, "not_operator")) return -type_checking_test(field(cond, "argument"), src);
  return 0;
}

class Collector {
 public:
  Collector(std::string_view src, ModuleFacts& out) : src_(src), out_(out) {}

  void run(TSNode root) {
    scopes_.push_back(Scope{ScopeKind::Module, "", "", {}, {}});
    Ctx ctx;
    visit_block(root, ctx, 0);
    finish();
  }

 private:
  std::string_view src_;
  ModuleFacts& out_;
  std::vector<Scope> scopes_;
  std::vector<NameUse> candidates_;
  std::unordered_set<std::string> module_import_names_;
  bool depth_reported_ = false;
  // Where events go: -1 the module body, >= 0 a function's body, -2 nowhere
  // (lambda bodies, which run only if called through a name we cannot follow).
  std::vector<int> sinks_{-1};

  void emit(const Ctx& ctx, Event::Kind kind, std::string name, int line, int import = -1) {
    if (ctx.type_checking) return;
    int sink = sinks_.back();
    if (sink == -2) return;
    Event e;
    e.kind = kind;
    e.name = std::move(name);
    e.line = line;
    e.import = import;
    e.guarded = ctx.in_try && ctx.guards_import_error;
    (sink == -1 ? out_.events : out_.functions[sink].events).push_back(std::move(e));
  }

  // "f", "a.b.f" for identifier/attribute chains of identifiers; "" otherwise.
  std::string callee_text(TSNode fn) const {
    if (is(fn, "identifier")) return text(fn);
    if (is(fn, "attribute")) {
      std::string obj = callee_text(field(fn, "object"));
      if (obj.empty()) return {};
      return obj + "." + text(field(fn, "attribute"));
    }
    return {};
  }

  std::string text(TSNode n) const { return std::string(ts::text(n, src_)); }

  bool too_deep(TSNode n, int depth) {
    if (depth < kMaxDepth) return false;
    if (!depth_reported_) {
      depth_reported_ = true;
      out_.syntax_problems.push_back(
          {ts::line(n), static_cast<int>(ts_node_start_point(n).column) + 1,
           "nesting too deep to analyse below this point"});
    }
    return true;
  }

  // ---- scopes -------------------------------------------------------------

  bool at_module_scope() const { return scopes_.size() == 1; }

  std::string qualify(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->kind == ScopeKind::Function || it->kind == ScopeKind::Class ||
          it->kind == ScopeKind::Module) {
        return it->qualified.empty() ? name : it->qualified + "." + name;
      }
    }
    return name;
  }

  const std::string& current_function() const { return scopes_.back().function; }

  std::string current_scope_name() const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->kind == ScopeKind::Function || it->kind == ScopeKind::Class ||
          it->kind == ScopeKind::Module)
        return it->qualified;
    }
    return {};
  }

  // Does `name`, looked up from the innermost scope, resolve to the module scope?
  bool resolves_to_module(const std::string& name) const {
    for (std::size_t i = scopes_.size(); i-- > 1;) {
      const Scope& s = scopes_[i];
      // Class scopes are visible only to code directly in the class body.
      if (s.kind == ScopeKind::Class && i != scopes_.size() - 1) continue;
      if (s.globals.count(name)) return true;
      if (s.kind != ScopeKind::Class && s.locals.count(name)) return false;
    }
    return true;
  }

  // ---- local-name collection for a function/lambda/comprehension ----------

  void collect_store_names(TSNode target, std::unordered_set<std::string>& into) {
    if (ts_node_is_null(target)) return;
    auto t = type(target);
    if (t == "identifier") {
      into.insert(text(target));
    } else if (t == "attribute" || t == "subscript") {
      return;
    } else {
      uint32_t nc = ts_node_named_child_count(target);
      for (uint32_t i = 0; i < nc; ++i) collect_store_names(ts_node_named_child(target, i), into);
    }
  }

  void collect_parameters(TSNode params, Scope& s) {
    if (ts_node_is_null(params)) return;
    uint32_t nc = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode p = ts_node_named_child(params, i);
      auto t = type(p);
      if (t == "identifier") {
        s.locals.insert(text(p));
      } else if (t == "default_parameter" || t == "typed_default_parameter") {
        collect_store_names(field(p, "name"), s.locals);
      } else if (t == "typed_parameter") {
        uint32_t k = ts_node_named_child_count(p);
        for (uint32_t j = 0; j < k; ++j) {
          TSNode c = ts_node_named_child(p, j);
          if (!is(c, "type")) collect_store_names(c, s.locals);
        }
      } else if (t == "list_splat_pattern" || t == "dictionary_splat_pattern" ||
                 t == "tuple_pattern") {
        collect_store_names(p, s.locals);
      }
    }
  }

  // Names bound in a function body (not descending into nested scopes, whose
  // own names are their business, but counting the nested definitions' names).
  void collect_locals(TSNode n, Scope& s, int depth) {
    if (depth > kMaxDepth) return;
    auto t = type(n);
    if (t == "function_definition" || t == "class_definition") {
      s.locals.insert(text(field(n, "name")));
      return;
    }
    if (t == "lambda" || is_comprehension(n)) {
      // Walrus targets inside a comprehension bind in the enclosing function.
      if (is_comprehension(n)) collect_walrus(n, s, depth + 1);
      return;
    }
    if (t == "global_statement") {
      uint32_t nc = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < nc; ++i) s.globals.insert(text(ts_node_named_child(n, i)));
      return;
    }
    if (t == "nonlocal_statement") {
      uint32_t nc = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < nc; ++i) s.locals.insert(text(ts_node_named_child(n, i)));
      return;
    }
    if (t == "assignment" || t == "augmented_assignment") {
      collect_store_names(field(n, "left"), s.locals);
    } else if (t == "for_statement" || t == "for_in_clause") {
      collect_store_names(field(n, "left"), s.locals);
    } else if (t == "as_pattern_target") {
      collect_store_names(n, s.locals);
    } else if (t == "except_clause") {
      // `except E as name`: older grammars put the alias in an as_pattern, handled above.
      TSNode alias = field(n, "alias");
      if (!ts_node_is_null(alias)) collect_store_names(alias, s.locals);
    } else if (t == "named_expression") {
      collect_store_names(field(n, "name"), s.locals);
    } else if (t == "delete_statement") {
      uint32_t nc = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < nc; ++i) collect_store_names(ts_node_named_child(n, i), s.locals);
    } else if (t == "import_statement" || t == "import_from_statement") {
      ImportStatement st;
      parse_import(n, st);
      for (auto& b : st.bound_names()) s.locals.insert(b);
      return;
    }
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) collect_locals(ts_node_named_child(n, i), s, depth + 1);
  }

  void collect_walrus(TSNode n, Scope& s, int depth) {
    if (depth > kMaxDepth) return;
    if (is(n, "named_expression")) collect_store_names(field(n, "name"), s.locals);
    if (is(n, "lambda") || is(n, "function_definition") || is(n, "class_definition")) return;
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) collect_walrus(ts_node_named_child(n, i), s, depth + 1);
  }

  // ---- imports ------------------------------------------------------------

  static std::string dotted(TSNode n, std::string_view src) {
    // dotted_name text may contain spaces/comments in odd code; rebuild from identifiers.
    std::string out;
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (!is(c, "identifier")) continue;
      if (!out.empty()) out += '.';
      out += ts::text(c, src);
    }
    return out;
  }

  void parse_import(TSNode n, ImportStatement& st) const {
    st.is_from = is(n, "import_from_statement");
    if (st.is_from) {
      TSNode mod = field(n, "module_name");
      if (is(mod, "relative_import")) {
        uint32_t nc = ts_node_named_child_count(mod);
        for (uint32_t i = 0; i < nc; ++i) {
          TSNode c = ts_node_named_child(mod, i);
          if (is(c, "import_prefix")) {
            auto p = ts::text(c, src_);
            st.level = static_cast<int>(std::count(p.begin(), p.end(), '.'));
          } else if (is(c, "dotted_name")) {
            st.module = dotted(c, src_);
          }
        }
      } else if (!ts_node_is_null(mod)) {
        st.module = dotted(mod, src_);
      }
    }
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (is(c, "wildcard_import")) {
        st.star = true;
        continue;
      }
      if (st.is_from && ts_node_eq(c, field(n, "module_name"))) continue;
      if (is(c, "dotted_name")) {
        st.names.push_back({dotted(c, src_), ""});
      } else if (is(c, "aliased_import")) {
        st.names.push_back({dotted(field(c, "name"), src_), std::string(ts::text(field(c, "alias"), src_))});
      }
    }
  }

  // Leading comment lines directly above, trailing comment, and the newline.
  void compute_span(ImportStatement& st) const {
    uint32_t b = st.stmt_begin, e = st.stmt_end;
    const std::string_view s = src_;
    // Is the statement alone on its line?
    uint32_t line_start = b;
    while (line_start > 0 && s[line_start - 1] != '\n') --line_start;
    bool alone_before = true;
    for (uint32_t i = line_start; i < b; ++i)
      if (s[i] != ' ' && s[i] != '\t' && s[i] != '\f') alone_before = false;
    uint32_t after = e;
    while (after < s.size() && (s[after] == ' ' || s[after] == '\t')) ++after;
    bool alone_after = after >= s.size() || s[after] == '\n' || s[after] == '\r' || s[after] == '#';
    st.shares_line = !(alone_before && alone_after);
    st.span_begin = b;
    st.span_end = e;
    if (st.shares_line) return;
    // Trailing comment and end of line.
    uint32_t end = after;
    if (end < s.size() && s[end] == '#') {
      while (end < s.size() && s[end] != '\n' && s[end] != '\r') ++end;
    }
    if (end < s.size() && s[end] == '\r') ++end;
    if (end < s.size() && s[end] == '\n') ++end;
    st.span_end = end;
    // Leading comment lines with the same indentation, no blank line between.
    uint32_t begin = line_start;
    const std::string_view indent = s.substr(line_start, b - line_start);
    while (begin > 0) {
      uint32_t prev_end = begin - 1;  // the '\n' ending the previous line
      uint32_t prev_start = prev_end;
      while (prev_start > 0 && s[prev_start - 1] != '\n') --prev_start;
      std::string_view line = s.substr(prev_start, prev_end - prev_start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.size() <= indent.size() || line.substr(0, indent.size()) != indent ||
          line[indent.size()] != '#')
        break;
      // A shebang or coding line at the very top belongs to the file, not the import.
      if (prev_start == 0 && (line.rfind("#!", 0) == 0 || line.find("coding") != std::string_view::npos))
        break;
      if (line.find("coding:") != std::string_view::npos || line.find("coding=") != std::string_view::npos)
        break;
      begin = prev_start;
    }
    st.span_begin = begin;
  }

  void record_import(TSNode n, const Ctx& ctx) {
    ImportStatement st;
    parse_import(n, st);
    st.line = ts::line(n);
    st.stmt_begin = ts_node_start_byte(n);
    st.stmt_end = ts_node_end_byte(n);
    st.text = text(n);
    st.scope = current_scope_name();
    bool in_function = ctx.deferred;
    if (in_function) st.context = ImportContext::FunctionBody;
    else if (ctx.type_checking) st.context = ImportContext::TypeChecking;
    else if (ctx.class_body) st.context = ImportContext::ClassBody;
    else if (ctx.in_try) st.context = ImportContext::TryExcept;
    else if (ctx.tc_else) st.context = ImportContext::TypeCheckingElse;
    else if (ctx.conditional) st.context = ImportContext::ConditionalIf;
    else st.context = ImportContext::ModuleLevel;
    st.at_import_time = st.context != ImportContext::FunctionBody &&
                        st.context != ImportContext::TypeChecking;
    st.guards_import_error = ctx.in_try && ctx.guards_import_error;
    compute_span(st);
    emit(ctx, Event::Kind::Import, {}, st.line, static_cast<int>(out_.imports.size()));
    if (!in_function && st.context != ImportContext::ClassBody) {
      for (auto& b : st.bound_names()) {
        module_import_names_.insert(b);
        if (!ctx.type_checking)
          out_.definitions.push_back({b, Definition::Kind::Import, st.line, st.stmt_begin});
      }
    }
    out_.imports.push_back(std::move(st));
  }

  // ---- uses -----------------------------------------------------------------

  void record_use(TSNode id, const Ctx& ctx) {
    std::string name = text(id);
    if (!resolves_to_module(name)) return;
    NameUse u;
    u.name = name;
    // Attribute chain starting at this identifier: a.b.c
    u.dotted = name;
    TSNode cur = id;
    for (TSNode p = ts_node_parent(cur); is(p, "attribute"); p = ts_node_parent(cur)) {
      if (!ts_node_eq(field(p, "object"), cur)) break;
      u.dotted += '.';
      u.dotted += ts::text(field(p, "attribute"), src_);
      cur = p;
    }
    classify(u, ctx);
    if (u.kind != UseKind::Annotation || u.eager) emit(ctx, Event::Kind::Use, u.dotted, ts::line(id));
    u.line = ts::line(id);
    u.begin = ts_node_start_byte(id);
    u.end = ts_node_end_byte(id);
    candidates_.push_back(std::move(u));
  }

  void classify(NameUse& u, const Ctx& ctx) const {
    u.scope = current_scope_name();
    u.function = current_function();
    if (ctx.annotation) {
      u.kind = UseKind::Annotation;
      u.eager = !out_.future_annotations && !ctx.local_var_annotation;
      u.where = "annotation";
    } else if (ctx.type_checking) {
      u.kind = UseKind::Annotation;
      u.where = "TYPE_CHECKING block";
    } else if (ctx.deferred) {
      u.kind = UseKind::Deferred;
      u.where = ctx.where;
    } else {
      u.kind = UseKind::ImportTime;
      u.where = ctx.where;
    }
  }

  // Identifiers inside a string annotation: "Foo", "List[a.B]".
  void record_string_annotation(TSNode str, const Ctx& ctx) {
    uint32_t nc = ts_node_named_child_count(str);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(str, i);
      if (is(c, "interpolation")) return;  // an f-string is not an annotation we can read
    }
    std::string_view body;
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(str, i);
      if (is(c, "string_content")) body = ts::text(c, src_);
    }
    std::size_t i = 0;
    while (i < body.size()) {
      unsigned char ch = body[i];
      if (std::isalpha(ch) || ch == '_') {
        std::size_t j = i;
        while (j < body.size() && (std::isalnum(static_cast<unsigned char>(body[j])) || body[j] == '_'))
          ++j;
        bool attr = i > 0 && body[i - 1] == '.';
        if (!attr) {
          std::string name(body.substr(i, j - i));
          if (resolves_to_module(name)) {
            NameUse u;
            u.name = name;
            std::size_t k = j;
            while (k + 1 < body.size() && body[k] == '.' &&
                   (std::isalpha(static_cast<unsigned char>(body[k + 1])) || body[k + 1] == '_')) {
              ++k;
              while (k < body.size() && (std::isalnum(static_cast<unsigned char>(body[k])) || body[k] == '_'))
                ++k;
            }
            u.dotted = std::string(body.substr(i, k - i));
            Ctx a = ctx;
            a.annotation = true;
            classify(u, a);
            u.eager = false;
            u.in_string = true;
            u.line = ts::line(str);
            u.begin = ts_node_start_byte(str);
            u.end = ts_node_end_byte(str);
            candidates_.push_back(std::move(u));
          }
        }
        i = j;
      } else if (std::isdigit(ch)) {
        while (i < body.size() && (std::isalnum(static_cast<unsigned char>(body[i])) || body[i] == '_')) ++i;
      } else {
        ++i;
      }
    }
  }

  // ---- module-level definitions ---------------------------------------------

  void define(TSNode target, Definition::Kind kind, const Ctx& ctx) {
    if (!at_module_scope() || ctx.type_checking || ctx.deferred) return;
    std::unordered_set<std::string> names;
    collect_store_names(target, names);
    std::vector<std::string> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    for (auto& n : sorted) {
      out_.definitions.push_back({n, kind, ts::line(target), ts_node_start_byte(target)});
      emit(ctx, Event::Kind::Bind, n, ts::line(target));
    }
  }

  // ---- the walk -------------------------------------------------------------

  void visit_block(TSNode n, const Ctx& ctx, int depth) {
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) visit(ts_node_named_child(n, i), ctx, depth + 1);
  }

  void visit_children(TSNode n, const Ctx& ctx, int depth) { visit_block(n, ctx, depth); }

  // A store target: identifiers bind, attribute objects and subscripts load.
  void visit_target(TSNode n, const Ctx& ctx, int depth) {
    if (ts_node_is_null(n) || too_deep(n, depth)) return;
    auto t = type(n);
    if (t == "identifier") return;
    if (t == "attribute") {
      visit(field(n, "object"), ctx, depth + 1);
      return;
    }
    if (t == "subscript") {
      visit_children(n, ctx, depth);
      return;
    }
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) visit_target(ts_node_named_child(n, i), ctx, depth + 1);
  }

  void visit_annotation(TSNode type_node, const Ctx& ctx, int depth, bool local_var = false) {
    if (ts_node_is_null(type_node)) return;
    Ctx a = ctx;
    a.annotation = true;
    a.local_var_annotation = local_var;
    visit(type_node, a, depth + 1);
  }

  void visit_parameters(TSNode params, const Ctx& outer, int depth) {
    if (ts_node_is_null(params)) return;
    uint32_t nc = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode p = ts_node_named_child(params, i);
      auto t = type(p);
      if (t == "default_parameter" || t == "typed_default_parameter") {
        Ctx d = outer;
        d.where = "default value";
        visit(field(p, "value"), d, depth + 1);
        visit_annotation(field(p, "type"), outer, depth);
      } else if (t == "typed_parameter") {
        visit_annotation(field(p, "type"), outer, depth);
      }
    }
  }

  // Decorators are applied (called) after the definition is made, then the name is bound.
  void apply_decorators(const std::vector<std::string>& decorators, const Ctx& ctx, int line) {
    for (auto it = decorators.rbegin(); it != decorators.rend(); ++it)
      if (!it->empty()) emit(ctx, Event::Kind::Call, *it, line);
  }

  void visit_function(TSNode n, const Ctx& ctx, int depth, uint32_t def_begin,
                      const std::vector<std::string>& decorators = {}) {
    std::string name = text(field(n, "name"));
    std::string qualified = qualify(name);
    // Parameters' defaults and annotations, and the return annotation, are
    // evaluated where the def statement runs.
    visit_parameters(field(n, "parameters"), ctx, depth);
    visit_annotation(field(n, "return_type"), ctx, depth);
    apply_decorators(decorators, ctx, ts::line(n));
    define(field(n, "name"), Definition::Kind::Function, ctx);

    Scope s{ScopeKind::Function, qualified, qualified, {}, {}};
    collect_parameters(field(n, "parameters"), s);
    TSNode body = field(n, "body");
    if (!ts_node_is_null(body)) collect_locals(body, s, depth + 1);

    FunctionInfo f;
    f.qualified_name = qualified;
    f.name = name;
    if (scopes_.back().kind == ScopeKind::Class) {
      const std::string& q = scopes_.back().qualified;
      auto dot = q.rfind('.');
      f.class_name = dot == std::string::npos ? q : q.substr(dot + 1);
    }
    f.is_async = ts_node_child_count(n) > 0 && is(ts_node_child(n, 0), "async");
    f.line = ts::line(n);
    f.begin = def_begin;
    f.end = ts_node_end_byte(n);
    f.body_begin = ts_node_is_null(body) ? f.end : ts_node_start_byte(body);
    f.body_line = ts_node_is_null(body) ? f.line : ts::line(body);
    f.locals.assign(s.locals.begin(), s.locals.end());
    std::sort(f.locals.begin(), f.locals.end());
    f.globals.assign(s.globals.begin(), s.globals.end());
    std::sort(f.globals.begin(), f.globals.end());
    out_.functions.push_back(std::move(f));

    scopes_.push_back(std::move(s));
    sinks_.push_back(static_cast<int>(out_.functions.size()) - 1);
    Ctx inner = ctx;
    inner.deferred = true;
    inner.class_body = false;
    inner.annotation = false;
    inner.type_checking = false;
    inner.in_try = inner.guards_import_error = false;
    inner.where = "function body";
    if (!ts_node_is_null(body)) visit_block(body, inner, depth);
    sinks_.pop_back();
    scopes_.pop_back();
  }

  void visit_class(TSNode n, const Ctx& ctx, int depth, const std::vector<std::string>& decorators = {}) {
    std::string name = text(field(n, "name"));
    ClassInfo info;
    info.qualified_name = qualify(name);
    info.line = ts::line(n);
    std::string metaclass;
    TSNode supers = field(n, "superclasses");
    if (!ts_node_is_null(supers)) {
      uint32_t nc = ts_node_named_child_count(supers);
      for (uint32_t i = 0; i < nc; ++i) {
        TSNode a = ts_node_named_child(supers, i);
        Ctx b = ctx;
        if (is(a, "keyword_argument")) {
          b.where = "class keyword";
          visit(field(a, "value"), b, depth + 1);
          if (ts::text(field(a, "name"), src_) == "metaclass") metaclass = callee_text(field(a, "value"));
        } else {
          b.where = "base class";
          visit(a, b, depth + 1);
          std::string base = callee_text(a);
          if (!base.empty()) info.bases.push_back(std::move(base));
        }
      }
    }
    out_.classes.push_back(info);
    Scope s{ScopeKind::Class, info.qualified_name, current_function(), {}, {}};
    scopes_.push_back(std::move(s));
    Ctx inner = ctx;
    inner.class_body = !ctx.deferred;
    inner.where = "class body";
    TSNode body = field(n, "body");
    if (!ts_node_is_null(body)) visit_block(body, inner, depth);
    scopes_.pop_back();
    // The class body has run; the metaclass makes the class, decorators wrap it.
    if (!metaclass.empty()) emit(ctx, Event::Kind::Call, metaclass, info.line);
    apply_decorators(decorators, ctx, info.line);
    define(field(n, "name"), Definition::Kind::Class, ctx);
  }

  void visit_lambda(TSNode n, const Ctx& ctx, int depth) {
    TSNode params = field(n, "parameters");
    visit_parameters(params, ctx, depth);
    Scope s{ScopeKind::Lambda, current_scope_name(), current_function(), {}, {}};
    collect_parameters(params, s);
    scopes_.push_back(std::move(s));
    sinks_.push_back(-2);
    Ctx inner = ctx;
    inner.deferred = true;
    inner.where = "lambda body";
    visit(field(n, "body"), inner, depth + 1);
    sinks_.pop_back();
    scopes_.pop_back();
  }

  void visit_comprehension(TSNode n, const Ctx& ctx, int depth) {
    // The first iterable is evaluated in the enclosing scope; the rest in the
    // comprehension's own scope, where its targets are local.
    Scope s{ScopeKind::Comprehension, current_scope_name(), current_function(), {}, {}};
    uint32_t nc = ts_node_named_child_count(n);
    bool first = true;
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (is(c, "for_in_clause")) {
        collect_store_names(field(c, "left"), s.locals);
        if (first) {
          uint32_t k = ts_node_named_child_count(c);
          for (uint32_t j = 0; j < k; ++j) {
            TSNode r = ts_node_named_child(c, j);
            if (!ts_node_eq(r, field(c, "left"))) visit(r, ctx, depth + 1);
          }
          first = false;
        }
      }
    }
    scopes_.push_back(std::move(s));
    bool first_clause = true;
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (is(c, "for_in_clause")) {
        if (first_clause) {
          first_clause = false;
          continue;
        }
        uint32_t k = ts_node_named_child_count(c);
        for (uint32_t j = 0; j < k; ++j) {
          TSNode r = ts_node_named_child(c, j);
          if (!ts_node_eq(r, field(c, "left"))) visit(r, ctx, depth + 1);
        }
      } else {
        visit(c, ctx, depth + 1);
      }
    }
    scopes_.pop_back();
  }

  void visit_if(TSNode n, const Ctx& ctx, int depth) {
    TSNode cond = field(n, "condition");
    int tc = type_checking_test(cond, src_);
    visit(cond, ctx, depth + 1);
    Ctx then_ctx = ctx, else_ctx = ctx;
    if (tc == 1) {
      then_ctx.type_checking = true;
      else_ctx.tc_else = true;
    } else if (tc == -1) {
      then_ctx.tc_else = true;
      else_ctx.type_checking = true;
    } else {
      then_ctx.conditional = else_ctx.conditional = true;
    }
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (ts_node_eq(c, cond)) continue;
      if (is(c, "block")) {
        visit_block(c, then_ctx, depth + 1);
      } else if (is(c, "elif_clause")) {
        // An elif of a TYPE_CHECKING test runs when TYPE_CHECKING is false: its
        // condition and body are in the else context.
        Ctx e = else_ctx;
        if (tc == 0) e.conditional = true;
        TSNode econd = field(c, "condition");
        visit(econd, e, depth + 1);
        int etc = type_checking_test(econd, src_);
        Ctx body_ctx = e;
        if (etc == 1) body_ctx.type_checking = true;
        visit_block(field(c, "consequence"), body_ctx, depth + 1);
      } else if (is(c, "else_clause")) {
        visit_block(field(c, "body"), else_ctx, depth + 1);
      } else {
        visit(c, then_ctx, depth + 1);
      }
    }
  }

  void visit_try(TSNode n, const Ctx& ctx, int depth) {
    Ctx t = ctx;
    t.in_try = true;
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if ((is(c, "except_clause") || is(c, "except_group_clause")) && catches_import_error(c, src_))
        t.guards_import_error = true;
    }
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (is(c, "block")) {
        visit_block(c, t, depth + 1);
      } else if (is(c, "except_clause") || is(c, "except_group_clause")) {
        uint32_t k = ts_node_named_child_count(c);
        for (uint32_t j = 0; j < k; ++j) {
          TSNode e = ts_node_named_child(c, j);
          if (is(e, "block")) visit_block(e, t, depth + 1);
          else visit(e, ctx, depth + 1);
        }
      } else {
        visit(c, t, depth + 1);  // else / finally
      }
    }
  }

  void visit_call(TSNode n, const Ctx& ctx, int depth) {
    TSNode fn = field(n, "function");
    auto ft = ts::text(fn, src_);
    if (ft == "__import__" || ft == "importlib.import_module" || ft == "import_module" ||
        ft == "importlib.__import__") {
      DynamicImport d;
      d.line = ts::line(n);
      d.call = std::string(ft);
      TSNode args = field(n, "arguments");
      if (is(args, "argument_list") && ts_node_named_child_count(args) > 0) {
        TSNode a = ts_node_named_child(args, 0);
        if (is(a, "string") && ts_node_named_child_count(a) <= 3) {
          for (uint32_t i = 0; i < ts_node_named_child_count(a); ++i) {
            TSNode c = ts_node_named_child(a, i);
            if (is(c, "string_content")) d.argument = text(c);
          }
        }
      }
      out_.dynamic_imports.push_back(std::move(d));
    }
    visit_children(n, ctx, depth);
    std::string callee = callee_text(fn);
    if (!callee.empty()) emit(ctx, Event::Kind::Call, std::move(callee), ts::line(n));
  }

  void visit_assignment(TSNode n, const Ctx& ctx, int depth) {
    TSNode left = field(n, "left");
    TSNode right = field(n, "right");
    TSNode ann = field(n, "type");
    bool augmented = is(n, "augmented_assignment");
    if (augmented) visit(left, ctx, depth + 1);  // x += 1 reads x
    else visit_target(left, ctx, depth + 1);
    if (!ts_node_is_null(ann)) {
      bool in_function_body = ctx.deferred && scopes_.back().kind == ScopeKind::Function;
      visit_annotation(ann, ctx, depth, in_function_body);
    }
    if (!ts_node_is_null(right)) visit(right, ctx, depth + 1);
    define(left, Definition::Kind::Assignment, ctx);
    if (at_module_scope() && is(left, "identifier") && ts::text(left, src_) == "__all__")
      read_dunder_all(right, augmented);
  }

  void read_dunder_all(TSNode value, bool extend) {
    if (ts_node_is_null(value)) return;
    if (!is(value, "list") && !is(value, "tuple")) return;
    if (!out_.dunder_all || !extend) out_.dunder_all.emplace();
    uint32_t nc = ts_node_named_child_count(value);
    for (uint32_t i = 0; i < nc; ++i) {
      TSNode s = ts_node_named_child(value, i);
      if (!is(s, "string")) continue;
      for (uint32_t j = 0; j < ts_node_named_child_count(s); ++j) {
        TSNode c = ts_node_named_child(s, j);
        if (is(c, "string_content")) out_.dunder_all->push_back(text(c));
      }
    }
  }

  void visit(TSNode n, const Ctx& ctx, int depth) {
    if (ts_node_is_null(n) || too_deep(n, depth)) return;
    auto t = type(n);
    if (t == "comment") return;
    if (t == "identifier") {
      record_use(n, ctx);
      return;
    }
    if (t == "attribute") {
      visit(field(n, "object"), ctx, depth + 1);
      return;
    }
    if (t == "keyword_argument") {
      visit(field(n, "value"), ctx, depth + 1);
      return;
    }
    if (t == "string") {
      if (ctx.annotation) record_string_annotation(n, ctx);
      else visit_children(n, ctx, depth);  // f-string interpolations
      return;
    }
    if (t == "import_statement" || t == "import_from_statement") {
      record_import(n, ctx);
      return;
    }
    if (t == "future_import_statement") {
      uint32_t nc = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < nc; ++i) {
        TSNode c = ts_node_named_child(n, i);
        TSNode nm = is(c, "aliased_import") ? field(c, "name") : c;
        if (ts::text(nm, src_) == "annotations") out_.future_annotations = true;
      }
      return;
    }
    if (t == "decorated_definition") {
      uint32_t nc = ts_node_named_child_count(n);
      Ctx d = ctx;
      d.where = "decorator";
      std::vector<std::string> decorators;
      for (uint32_t i = 0; i < nc; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (!is(c, "decorator")) continue;
        visit_children(c, d, depth + 1);
        // `@name` / `@mod.name` call that function with the definition;
        // `@factory(args)` calls what factory returned, which we cannot follow.
        decorators.push_back(ts_node_named_child_count(c) == 1 ? callee_text(ts_node_named_child(c, 0))
                                                              : std::string());
      }
      TSNode def = field(n, "definition");
      if (is(def, "function_definition"))
        visit_function(def, ctx, depth + 1, ts_node_start_byte(n), decorators);
      else if (is(def, "class_definition"))
        visit_class(def, ctx, depth + 1, decorators);
      return;
    }
    if (t == "function_definition") {
      visit_function(n, ctx, depth, ts_node_start_byte(n));
      return;
    }
    if (t == "class_definition") {
      visit_class(n, ctx, depth);
      return;
    }
    if (t == "lambda") {
      visit_lambda(n, ctx, depth);
      return;
    }
    if (is_comprehension(n)) {
      Ctx c = ctx;
      if (!ctx.deferred && scopes_.back().kind == ScopeKind::Module) c.where = "comprehension";
      visit_comprehension(n, c, depth);
      return;
    }
    if (t == "if_statement") {
      visit_if(n, ctx, depth);
      return;
    }
    if (t == "try_statement") {
      visit_try(n, ctx, depth);
      return;
    }
    if (t == "for_statement" || t == "while_statement" || t == "with_statement") {
      Ctx c = ctx;
      if (!ctx.deferred && !ctx.class_body) c.conditional = true;
      if (t == "for_statement") {
        TSNode left = field(n, "left");
        visit_target(left, ctx, depth + 1);
        define(left, Definition::Kind::Assignment, ctx);
        uint32_t nc = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < nc; ++i) {
          TSNode k = ts_node_named_child(n, i);
          if (ts_node_eq(k, left)) continue;
          visit(k, is(k, "block") || is(k, "else_clause") ? c : ctx, depth + 1);
        }
      } else {
        visit_children(n, c, depth);
      }
      return;
    }
    if (t == "as_pattern_target") {
      visit_target(n, ctx, depth + 1);
      define(n, Definition::Kind::Assignment, ctx);
      return;
    }
    if (t == "named_expression") {
      visit(field(n, "value"), ctx, depth + 1);
      define(field(n, "name"), Definition::Kind::Assignment, ctx);
      return;
    }
    if (t == "assignment" || t == "augmented_assignment") {
      visit_assignment(n, ctx, depth);
      return;
    }
    if (t == "global_statement" || t == "nonlocal_statement") return;
    if (t == "call") {
      visit_call(n, ctx, depth);
      return;
    }
    if (t == "expression_statement" && at_module_scope() && ts_node_named_child_count(n) == 1) {
      // __all__.extend([...]) / __all__ += [...] handled via assignment; extend here.
      TSNode c = ts_node_named_child(n, 0);
      if (is(c, "call")) {
        TSNode fn = field(c, "function");
        if (ts::text(fn, src_) == "__all__.extend") {
          TSNode args = field(c, "arguments");
          if (ts_node_named_child_count(args) == 1) read_dunder_all(ts_node_named_child(args, 0), true);
        }
      }
    }
    visit_children(n, ctx, depth);
  }

  void finish() {
    for (auto& u : candidates_) {
      if (module_import_names_.count(u.name)) out_.uses.push_back(std::move(u));
    }
    // Use events are kept for imported names only.
    auto keep = [&](std::vector<Event>& events) {
      std::erase_if(events, [&](const Event& e) {
        if (e.kind != Event::Kind::Use) return false;
        return !module_import_names_.count(e.name.substr(0, e.name.find('.')));
      });
    };
    keep(out_.events);
    for (auto& f : out_.functions) keep(f.events);
  }
};

void collect_syntax_problems(TSNode root, std::string_view src, ModuleFacts& out) {
  if (!ts_node_has_error(root)) return;
  constexpr std::size_t kMaxReported = 20;
  std::vector<TSNode> stack{root};
  std::vector<SyntaxProblem> found;
  while (!stack.empty() && found.size() < kMaxReported) {
    TSNode n = stack.back();
    stack.pop_back();
    if (ts_node_is_missing(n)) {
      found.push_back({ts::line(n), static_cast<int>(ts_node_start_point(n).column) + 1,
                       "syntax error: missing " + std::string(type(n))});
      continue;
    }
    if (is(n, "ERROR")) {
      std::string_view t = ts::text(n, src);
      auto nl = t.find('\n');
      if (nl != std::string_view::npos) t = t.substr(0, nl);
      if (t.size() > 40) t = t.substr(0, 40);
      found.push_back({ts::line(n), static_cast<int>(ts_node_start_point(n).column) + 1,
                       "syntax error near '" + std::string(t) + "'"});
      continue;
    }
    if (!ts_node_has_error(n)) continue;
    uint32_t nc = ts_node_child_count(n);
    for (uint32_t i = nc; i-- > 0;) stack.push_back(ts_node_child(n, i));
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return std::tie(a.line, a.column) < std::tie(b.line, b.column); });
  out.syntax_problems.insert(out.syntax_problems.end(), found.begin(), found.end());
}

}  // namespace

ModuleFacts collect_facts(std::string_view source, ::TSParser* parser) {
  thread_local ts::ParserPtr local_parser;
  if (!parser) {
    if (!local_parser) local_parser = ts::make_python_parser();
    parser = local_parser.get();
  }
  ModuleFacts facts;
  facts.lines = static_cast<uint32_t>(std::count(source.begin(), source.end(), '\n') +
                                      (!source.empty() && source.back() != '\n' ? 1 : 0));
  ts::TreePtr tree = ts::parse(parser, source);
  TSNode root = ts_tree_root_node(tree.get());
  collect_syntax_problems(root, source, facts);
  Collector(source, facts).run(root);
  std::stable_sort(facts.syntax_problems.begin(), facts.syntax_problems.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  return facts;
}

}  // namespace cyclefix
