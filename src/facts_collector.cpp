// Collects ModuleFacts from one tree-sitter tree in a single walk.
//
// The walk keeps a stack of Python scopes (module, class, function, lambda,
// comprehension). A function's local names are computed when the walk enters
// it, so that a name the function binds (parameter, assignment, import, ...)
// hides the module's import of the same name, as Python's compiler decides.
// Every identifier that resolves to the module scope is a candidate use; at the
// end only candidates naming a module-level import binding are kept.

#include <algorithm>
#include <forward_list>
#include <memory>
#include <cstring>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "facts.hpp"
#include "blanking.hpp"
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
    case ImportContext::MainGuard: return "main-guard";
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

constexpr int kMaxDepth = 1500;

// ---- the grammar's symbols and fields, looked up once -------------------------

// Node types the collector tells apart. A node's kind comes from a table indexed
// by its symbol id, built from the symbol names: the same answers as comparing
// ts_node_type strings, without the string compares.
enum Kind : uint8_t {
  kOther,
  kAliasedImport, kArgumentList, kAsPatternTarget, kAssignment, kAsync, kAttribute,
  kAugmentedAssignment, kBlock, kCall, kCaseClause, kClassDefinition, kComment,
  kDecoratedDefinition, kDecorator, kDefaultParameter, kDeleteStatement,
  kDictionaryComprehension, kDictionarySplatPattern, kDottedName, kElifClause, kElseClause,
  kError, kExceptClause, kExceptGroupClause, kExpressionStatement, kFinallyClause, kForInClause,
  kForStatement, kFunctionDefinition, kFutureImportStatement, kGeneratorExpression,
  kGlobalStatement, kIdentifier, kIfStatement, kImportFromStatement, kImportPrefix,
  kImportStatement, kInterpolation, kKeywordArgument, kLambda, kList, kListComprehension,
  kListSplatPattern, kMatchStatement, kModule, kNamedExpression, kNonlocalStatement,
  kNotOperator, kParenthesizedExpression, kRelativeImport, kReturnStatement, kSet, kSetComprehension, kString,
  kStringContent, kSubscript, kTryStatement, kTuple, kTuplePattern, kType,
  kTypedDefaultParameter, kTypedParameter, kWhileStatement, kWildcardImport, kWithStatement,
  // Operators and values, for protocol events.
  kAsPattern, kAssertStatement, kBinaryOperator, kBooleanOperator, kComparisonOperator,
  kConcatenatedString, kConditionalExpression, kDictionary, kFalse, kFloat, kInteger, kNone,
  kPair, kTrue, kUnaryOperator, kWithItem,
};

constexpr std::pair<std::string_view, Kind> kKindNames[] = {
    {"aliased_import", kAliasedImport},
    {"argument_list", kArgumentList},
    {"as_pattern_target", kAsPatternTarget},
    {"assignment", kAssignment},
    {"async", kAsync},
    {"attribute", kAttribute},
    {"augmented_assignment", kAugmentedAssignment},
    {"block", kBlock},
    {"call", kCall},
    {"case_clause", kCaseClause},
    {"class_definition", kClassDefinition},
    {"comment", kComment},
    {"decorated_definition", kDecoratedDefinition},
    {"decorator", kDecorator},
    {"default_parameter", kDefaultParameter},
    {"delete_statement", kDeleteStatement},
    {"dictionary_comprehension", kDictionaryComprehension},
    {"dictionary_splat_pattern", kDictionarySplatPattern},
    {"dotted_name", kDottedName},
    {"elif_clause", kElifClause},
    {"else_clause", kElseClause},
    {"ERROR", kError},
    {"except_clause", kExceptClause},
    {"except_group_clause", kExceptGroupClause},
    {"expression_statement", kExpressionStatement},
    {"finally_clause", kFinallyClause},
    {"for_in_clause", kForInClause},
    {"for_statement", kForStatement},
    {"function_definition", kFunctionDefinition},
    {"future_import_statement", kFutureImportStatement},
    {"generator_expression", kGeneratorExpression},
    {"global_statement", kGlobalStatement},
    {"identifier", kIdentifier},
    {"if_statement", kIfStatement},
    {"import_from_statement", kImportFromStatement},
    {"import_prefix", kImportPrefix},
    {"import_statement", kImportStatement},
    {"interpolation", kInterpolation},
    {"keyword_argument", kKeywordArgument},
    {"lambda", kLambda},
    {"list", kList},
    {"list_comprehension", kListComprehension},
    {"list_splat_pattern", kListSplatPattern},
    {"match_statement", kMatchStatement},
    {"module", kModule},
    {"named_expression", kNamedExpression},
    {"nonlocal_statement", kNonlocalStatement},
    {"not_operator", kNotOperator},
    {"parenthesized_expression", kParenthesizedExpression},
    {"relative_import", kRelativeImport},
    {"return_statement", kReturnStatement},
    {"set", kSet},
    {"set_comprehension", kSetComprehension},
    {"string", kString},
    {"string_content", kStringContent},
    {"subscript", kSubscript},
    {"try_statement", kTryStatement},
    {"tuple", kTuple},
    {"tuple_pattern", kTuplePattern},
    {"type", kType},
    {"typed_default_parameter", kTypedDefaultParameter},
    {"typed_parameter", kTypedParameter},
    {"while_statement", kWhileStatement},
    {"wildcard_import", kWildcardImport},
    {"with_statement", kWithStatement},
    {"as_pattern", kAsPattern},
    {"assert_statement", kAssertStatement},
    {"binary_operator", kBinaryOperator},
    {"boolean_operator", kBooleanOperator},
    {"comparison_operator", kComparisonOperator},
    {"concatenated_string", kConcatenatedString},
    {"conditional_expression", kConditionalExpression},
    {"dictionary", kDictionary},
    {"false", kFalse},
    {"float", kFloat},
    {"integer", kInteger},
    {"none", kNone},
    {"pair", kPair},
    {"true", kTrue},
    {"unary_operator", kUnaryOperator},
    {"with_item", kWithItem},
};

Kind kind_of_name(std::string_view name) {
  for (const auto& [n, k] : kKindNames)
    if (n == name) return k;
  return kOther;
}

// Expressions (and statements made only of expressions): a name they bind can
// only come from a walrus `:=` or an `as` pattern.
constexpr std::string_view kExpressionNames[] = {
    "argument_list", "assert_statement", "attribute", "await", "binary_operator",
    "boolean_operator", "call", "comparison_operator", "concatenated_string",
    "conditional_expression", "dictionary", "dictionary_splat", "ellipsis", "expression_list",
    "false", "float", "integer", "keyword_argument", "list", "list_splat", "none", "not_operator",
    "pair", "parenthesized_expression", "raise_statement", "return_statement", "set", "slice",
    "string", "subscript", "true", "tuple", "unary_operator", "yield",
};

struct Grammar {
  std::vector<Kind> kinds;  // symbol id -> kind
  std::vector<bool> expression;  // symbol id -> one of kExpressionNames
  TSFieldId alias, argument, arguments, attribute, body, condition, consequence, definition,
      function, key, left, module_name, name, object, operator_, parameters, return_type, right,
      superclasses, type, value;

  Grammar() {
    const TSLanguage* lang = tree_sitter_python();
    // symbol_count includes the aliases' symbols.
    uint32_t n = ts_language_symbol_count(lang);
    kinds.resize(n, kOther);
    expression.resize(n, false);
    for (uint32_t s = 0; s < n; ++s) {
      const char* nm = ts_language_symbol_name(lang, static_cast<TSSymbol>(s));
      if (!nm) continue;
      kinds[s] = kind_of_name(nm);
      for (std::string_view e : kExpressionNames) expression[s] = expression[s] || e == nm;
    }
    auto f = [&](std::string_view name) {
      return ts_language_field_id_for_name(lang, name.data(), static_cast<uint32_t>(name.size()));
    };
    alias = f("alias");
    argument = f("argument");
    arguments = f("arguments");
    attribute = f("attribute");
    body = f("body");
    condition = f("condition");
    consequence = f("consequence");
    definition = f("definition");
    function = f("function");
    key = f("key");
    left = f("left");
    module_name = f("module_name");
    name = f("name");
    object = f("object");
    operator_ = f("operator");
    parameters = f("parameters");
    return_type = f("return_type");
    right = f("right");
    superclasses = f("superclasses");
    type = f("type");
    value = f("value");
  }

  bool is_expression(TSNode n) const {
    TSSymbol s = ts_node_symbol(n);
    return s < expression.size() && expression[s];
  }

  // The kind of a non-null node.
  Kind kind(TSNode n) const {
    TSSymbol s = ts_node_symbol(n);
    if (s < kinds.size()) return kinds[s];
    return kind_of_name(ts_node_type(n));  // the built-in ERROR symbols
  }
};

const Grammar& grammar() {
  static const Grammar g;
  return g;
}

using ts::field;

enum class ScopeKind { Module, Class, Function, Lambda, Comprehension };

struct Scope {
  ScopeKind kind;
  std::string qualified;       // "Foo.bar"
  std::string function;        // innermost enclosing function's qualified name
  // Sorted and unique once the scope is pushed; views into the source or into
  // Collector::owned_.
  std::vector<std::string_view> locals;
  std::vector<std::string_view> globals;
  std::vector<std::string_view> import_locals;  // locals bound by imports in the body
  // Function and class scopes: the defs and classes made directly in the scope
  // so far (name -> qualified name), and what a local name assigned from a
  // callable calls (`ret = _V`, `f = functools.partial(g, 1)`).
  std::vector<std::pair<std::string_view, std::string>> nested;
  std::vector<std::pair<std::string_view, std::vector<std::string>>> aliases;
  int function_index = -1;  // Function scopes: the index of its FunctionInfo
  int class_index = -1;     // Class scopes: the index of its ClassInfo
};

void sort_unique(std::vector<std::string_view>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool is_identifier_byte(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || u == '_';
}

// Could source text `t` hold a walrus or an `as` pattern (the only ways an
// expression binds a name)? False positives only cost time.
bool may_bind(std::string_view t) {
  if (t.find(":=") != std::string_view::npos) return true;
  for (std::size_t i = t.find("as"); i != std::string_view::npos; i = t.find("as", i + 1)) {
    if ((i == 0 || !is_identifier_byte(t[i - 1])) && (i + 2 >= t.size() || !is_identifier_byte(t[i + 2])))
      return true;
  }
  return false;
}

// A small set of names, looked up once per identifier of the file: open
// addressing and a cheap hash instead of std::unordered_set's.
class NameSet {
 public:
  bool contains(std::string_view s) const {
    if (size_ == 0 || !(lengths_ >> std::min<std::size_t>(s.size(), 63) & 1)) return false;
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(s) & mask;; i = (i + 1) & mask) {
      const std::string_view& e = slots_[i];
      if (e.data() == nullptr) return false;
      if (e == s) return true;
    }
  }
  std::size_t count(std::string_view s) const { return contains(s) ? 1 : 0; }
  // `s` must outlive the set.
  void insert(std::string_view s) {
    if (contains(s)) return;
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(s);
    lengths_ |= uint64_t{1} << std::min<std::size_t>(s.size(), 63);
    ++size_;
  }

 private:
  static std::size_t hash(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull ^ s.size();
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  void place(std::string_view s) {
    std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(s) & mask;
    while (slots_[i].data() != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }
  void grow() {
    std::vector<std::string_view> old(slots_.size() < 16 ? 32 : slots_.size() * 2);
    old.swap(slots_);
    for (auto e : old)
      if (e.data() != nullptr) place(e);
  }
  std::vector<std::string_view> slots_;
  std::size_t size_ = 0;
  uint64_t lengths_ = 0;  // bit n: a name of n bytes (63: or more) is in the set
};

// `a`, `a.b.c`: identifier bytes, and single dots between non-empty runs of them.
bool plain_dotted(std::string_view t) {
  if (t.empty() || t.front() == '.' || t.back() == '.') return false;
  char prev = 0;
  for (char c : t) {
    if (c == '.') {
      if (prev == '.') return false;
    } else if (!is_identifier_byte(c)) {
      return false;
    }
    prev = c;
  }
  return true;
}

bool contains(const std::vector<std::string_view>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

// The evaluation context of the node being visited.
struct Ctx {
  bool deferred = false;       // inside a function/lambda body
  bool annotation = false;     // inside an annotation
  bool local_var_annotation = false;  // `x: T` inside a function body: never evaluated
  uint32_t annotation_begin = 0, annotation_end = 0;  // the annotation expression, when annotation
  bool type_checking = false;  // inside `if TYPE_CHECKING:`
  bool tc_else = false;        // inside the else branch of such an if
  bool in_try = false;
  bool guards_import_error = false;
  int try_end = 0;  // Event::try_end and Event::catches for events made here
  int catches = 0;
  bool conditional = false;    // other if/for/while/with at module level
  bool class_body = false;     // directly in a class body (not deeper function)
  bool main_guard = false;     // under `if __name__ == "__main__":`: never runs on import
  std::string guard;           // Event::guard's condition for events made here ("" none)
  bool if_branch = false;      // under an `if` whose test the simulator cannot decide
  const char* where = "module level";
  // Where CPython refuses a `lazy` import (PEP 810): inside a try statement of
  // the innermost function or class (or module), and inside a function or class.
  bool lazy_in_try = false;
  const char* lazy_scope = nullptr;  // "functions" / "classes" (CPython's wording)
};

// Vectors that grow while a file is walked, reused from file to file: a growing
// vector frees its old buffer at each step, and large frees next to a freshly
// freed tree cost a lot in malloc. The facts get exact-size copies.
struct Scratch {
  std::vector<NameUse> candidates;
  std::vector<char> kept;
  std::vector<std::vector<Event>> events;  // by depth in Collector::sinks_
  // The facts' vectors of large elements, filled here and moved out at their
  // exact size by finish(): growing them in place reallocated (and moved every
  // element) a few times per file, and each large allocation made malloc
  // consolidate its fast bins.
  std::vector<ImportStatement> imports;
  std::vector<FunctionInfo> functions;
  std::vector<Definition> definitions;
  std::vector<ClassInfo> classes;

  void reset() {
    candidates.clear();
    kept.clear();
    for (auto& e : events) e.clear();
    imports.clear();
    functions.clear();
    definitions.clear();
    classes.clear();
  }
  // Gives back what a huge file left behind.
  void trim() {
    constexpr std::size_t kKeepBytes = std::size_t{4} << 20;
    auto trim_one = [&](auto& v) {
      if (v.capacity() * sizeof(v[0]) > kKeepBytes) std::remove_reference_t<decltype(v)>().swap(v);
    };
    trim_one(candidates);
    trim_one(kept);
    trim_one(imports);
    trim_one(functions);
    trim_one(definitions);
    trim_one(classes);
    for (auto& e : events) trim_one(e);
  }
};

class Collector {
 public:
  // With `prefilter`, identifiers that no module-level import binds are dropped
  // before any work (they could only be dropped at the end anyway).
  // `lazy` keywords the parse accepted (blanking.hpp); `src` is the
  // original source, not the blanked copy that was parsed.
  Collector(std::string_view src, ModuleFacts& out, ts::ChildPool& pool, Scratch& scratch,
            bool prefilter, const std::vector<LazyKeyword>& lazy)
      : g_(grammar()), src_(src), out_(out), pool_(pool), scratch_(scratch),
        candidates_(scratch.candidates), prefilter_(prefilter), lazy_(lazy) {
    pool_.clear_memo();  // it described another tree
    scratch_.reset();
  }
  ~Collector() { pool_.clear_memo(); }

  // False when the pre-pass missed a name that a module-level import binds: the
  // facts are then incomplete and the caller collects again without the filter.
  bool run(TSNode root) {
    // The module's statements are listed once for the pre-pass and the visit
    // (a long list costs a tree-cursor walk).
    const ts::ChildList top = named(root);
    if (prefilter_) collect_import_names(top, 0);
    scopes_.push_back(Scope{ScopeKind::Module, "", "", {}, {}, {}, {}, {}});
    Ctx ctx;
    for (TSNode c : top) {
      top_statement_ = c;
      visit(c, ctx, 1);
    }
    if (prefilter_) {
      for (const auto& n : module_import_names_)
        if (!maybe_imported_.count(n)) return false;
    }
    finish();
    return true;
  }

 private:
  const Grammar& g_;
  std::string_view src_;
  ModuleFacts& out_;
  ts::ChildPool& pool_;
  Scratch& scratch_;
  std::vector<NameUse>& candidates_;
  bool prefilter_;
  const std::vector<LazyKeyword>& lazy_;
  std::vector<Scope> scopes_;
  std::unordered_set<std::string> module_import_names_;
  // Names bound by import statements that may run in the module scope (a
  // superset of module_import_names_), from the pre-pass.
  NameSet maybe_imported_;
  std::forward_list<std::string> owned_;  // storage for names that are not source text
  // Import statements parsed before the visit reaches them, by node (id; start byte).
  std::unordered_map<const void*, std::pair<uint32_t, ImportStatement>> parsed_imports_;
  // The attribute chain visit_attribute walked last: its names (outermost
  // first), top node, and how it ended (on an identifier, on another
  // expression, or cut short by the depth limit).
  std::vector<std::string_view> attr_chain_;
  const void* chain_top_ = nullptr;
  // The attribute node whose last attribute is not read: a call's callee
  // (`self.m()`) or an assignment's target (`self.x = v`).
  const void* not_read_top_ = nullptr;
  enum class ChainEnd { Identifier, Other, Cut } chain_end_ = ChainEnd::Cut;
  std::string_view chain_base_;
  bool depth_reported_ = false;
  bool memoize_ = false;
  TSNode top_statement_{};  // the module-level statement run() is visiting
  int open_functions_ = 0;  // function scopes on scopes_
  // A metaclass's `__new__`/`__init__(mcs, name, bases, ns)` being visited: its
  // FunctionInfo index and the name of its bases parameter (not rebound in the
  // body), for bases_test.
  int bases_function_ = -1;
  std::string bases_param_;
  // Where events go: -1 the module body, >= 0 a function's body, -2 nowhere
  // (lambda bodies, which run only if called through a name we cannot follow).
  std::vector<int> sinks_{-1};

  // The events of the body at depth `level` of sinks_ (moved into the facts when
  // the body ends).
  std::vector<Event>& events_at(std::size_t level) {
    if (scratch_.events.size() <= level) scratch_.events.resize(level + 1);
    return scratch_.events[level];
  }
  std::vector<Event>& current_events() { return events_at(sinks_.size() - 1); }
  void push_sink(int sink) {
    sinks_.push_back(sink);
    current_events().clear();
    if (protocols_.size() < sinks_.size()) protocols_.resize(sinks_.size());
    protocols_[sinks_.size() - 1].clear();
  }
  // Ends the current body: its events go, at their exact size, to `into`.
  void pop_sink(std::vector<Event>* into) {
    std::vector<Event>& buf = current_events();
    if (into) {
      into->reserve(into->size() + buf.size());
      std::move(buf.begin(), buf.end(), std::back_inserter(*into));
    }
    buf.clear();
    sinks_.pop_back();
  }

  Kind kind(TSNode n) const { return g_.kind(n); }
  bool is(TSNode n, Kind k) const { return !ts_node_is_null(n) && g_.kind(n) == k; }
  // While a function body is scanned for its local names, the child lists are
  // memoized for the visit that follows.
  ts::ChildList named(TSNode n) { return memoize_ ? pool_.named_memo(n) : pool_.named(n); }
  std::string_view view(TSNode n) const { return ts::text(n, src_); }
  std::string text(TSNode n) const { return std::string(ts::text(n, src_)); }
  std::string_view own(std::string s) { return owned_.emplace_front(std::move(s)); }

  // Returns whether the event was recorded (current_events().back()).
  bool emit(const Ctx& ctx, Event::Kind kind, std::string name, int line, int import = -1) {
    if (ctx.type_checking || ctx.main_guard) return false;
    int sink = sinks_.back();
    if (sink == -2) return false;
    Event e;
    e.kind = kind;
    e.name = std::move(name);
    e.line = line;
    e.import = import;
    e.guarded = ctx.in_try && ctx.guards_import_error;
    e.try_end = ctx.try_end;
    e.catches = static_cast<std::uint8_t>(ctx.catches);
    if (!ctx.guard.empty()) e.guard = intern_guard(ctx.guard);
    // Inside a function, an if/elif/else or try body may not run when the function does.
    e.conditional = (ctx.deferred && ctx.conditional) || ctx.if_branch;
    current_events().push_back(std::move(e));
    return true;
  }

  // "f", "a.b.f" for identifier/attribute chains of identifiers; "" otherwise.
  std::string callee_text(TSNode fn) const {
    if (is(fn, kIdentifier)) return text(fn);
    if (is(fn, kAttribute)) {
      std::string obj = callee_text(field(fn, g_.object));
      if (obj.empty()) return {};
      obj += '.';
      obj += view(field(fn, g_.attribute));
      return obj;
    }
    return {};
  }

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

  // Exception names that make a try/except swallow a failing import.
  // A handler naming one of `names` (in a tuple too), or a bare `except:`.
  bool catches(TSNode handler, std::initializer_list<std::string_view> names) {
    bool has_value = false;
    for (TSNode c : named(handler)) {
      if (is(c, kBlock)) continue;
      has_value = true;
      auto t = view(c);
      for (std::string_view name : names)
        if (t.find(name) != std::string_view::npos) return true;
    }
    return !has_value;
  }

  bool catches_import_error(TSNode handler) {
    return catches(handler, {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"});
  }

  // `TYPE_CHECKING`, `typing.TYPE_CHECKING`, `t.TYPE_CHECKING`; 1 = true branch guarded,
  // -1 = `not TYPE_CHECKING`, 0 = not a TYPE_CHECKING test.
  int type_checking_test(TSNode cond) const {
    if (ts_node_is_null(cond)) return 0;
    switch (kind(cond)) {
      case kParenthesizedExpression:
        if (ts_node_named_child_count(cond) == 1) return type_checking_test(ts_node_named_child(cond, 0));
        return 0;
      case kIdentifier: return view(cond) == "TYPE_CHECKING" ? 1 : 0;
      case kAttribute: return view(field(cond, g_.attribute)) == "TYPE_CHECKING" ? 1 : 0;
      case kNotOperator: return -type_checking_test(field(cond, g_.argument));
      default: return 0;
    }
  }

  // Only an f-string (an `f` in the prefix before its quote) has interpolations.
  // Its other children (string_start, string_content, ...) hold nothing to visit.
  bool may_interpolate(TSNode str) const {
    if (ts_node_has_error(str)) return true;
    std::string_view t = view(str);
    for (char c : t) {
      if (c == '"' || c == '\'') return false;
      if (c == 'f' || c == 'F' || c == 't' || c == 'T') return true;  // f-strings, 3.14 t-strings
    }
    return true;
  }

  // ---- the pre-pass -----------------------------------------------------------

  // Names bound by import statements that can run in the module scope: imports
  // sit in module-level statements, possibly nested in compound statements, but
  // never in expressions (unless the parse has errors) nor in function or class
  // bodies (whose imports are not module names).
  void collect_import_names(TSNode n, int depth) {
    if (depth > kMaxDepth + 8) return;  // run() notices anything missed
    collect_import_names(named(n), depth);
  }
  // The same for the named children of a node at `depth`.
  void collect_import_names(const ts::ChildList& children, int depth) {
    for (TSNode c : children) {
      switch (kind(c)) {
        case kImportStatement:
        case kImportFromStatement: {
          const ImportStatement& st = parsed_import(c);
          for (auto& b : st.bound_names()) {
            if (!maybe_imported_.contains(b)) maybe_imported_.insert(own(std::move(b)));
          }
          break;
        }
        case kBlock: case kIfStatement: case kElifClause: case kElseClause: case kTryStatement:
        case kExceptClause: case kExceptGroupClause: case kFinallyClause: case kWithStatement:
        case kForStatement: case kWhileStatement: case kMatchStatement: case kCaseClause:
        case kError:
          collect_import_names(c, depth + 1);
          break;
        default:
          if (ts_node_has_error(c)) collect_import_names(c, depth + 1);
          break;
      }
    }
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

  // What a call of `callee` (dotted, as written) calls, seen from the current
  // scope: a def or class nested in an enclosing function (or, directly in a
  // class body, one of the class's) by its qualified name, or what a local
  // alias was assigned. Empty: nothing local, `callee` means what it says.
  std::vector<std::string> local_callees(std::string_view callee) const {
    auto dot = callee.find('.');
    std::string_view head = callee.substr(0, dot);
    std::string_view rest = dot == std::string_view::npos ? std::string_view() : callee.substr(dot);
    auto with_rest = [&](const std::string& t) { return rest.empty() ? t : t + std::string(rest); };
    for (std::size_t i = scopes_.size(); i-- > 1;) {
      const Scope& s = scopes_[i];
      if (s.kind == ScopeKind::Class && i != scopes_.size() - 1) continue;
      if (contains(s.globals, head)) return {};
      for (auto it = s.aliases.rbegin(); it != s.aliases.rend(); ++it) {
        if (it->first != head) continue;
        std::vector<std::string> out;
        for (const auto& t : it->second) out.push_back(with_rest(t));
        return out;
      }
      for (auto it = s.nested.rbegin(); it != s.nested.rend(); ++it)
        if (it->first == head) return {with_rest(it->second)};
      if (s.kind != ScopeKind::Class && contains(s.locals, head)) return {};
    }
    return {};
  }

  // `name` is a parameter of the innermost function or, free in it, of an
  // enclosing function (class bodies are not enclosing scopes).
  bool parameter_in_scope(std::string_view name) const {
    for (std::size_t i = scopes_.size(); i-- > 1;) {
      const Scope& s = scopes_[i];
      if (s.kind == ScopeKind::Class) continue;
      if (s.kind != ScopeKind::Function || s.function_index < 0) return false;
      if (scratch_.functions[s.function_index].has_param(name)) return true;
      if (contains(s.locals, name) || contains(s.globals, name)) return false;
    }
    return false;
  }

  std::string local_callee(std::string callee) const {
    if (scopes_.size() == 1 || callee.empty()) return callee;
    auto local = local_callees(callee);
    return local.empty() ? callee : local.front();
  }

  // Records that the enclosing function or class scope defines `name`.
  void define_nested(std::string_view name, const std::string& qualified) {
    if (scopes_.size() > 1 && !name.empty()) scopes_.back().nested.emplace_back(name, qualified);
  }

  // `name = target`: what calling `name` calls, when target is a dotted name
  // or functools.partial/staticmethod/classmethod of one.
  // `name = Cls(...)` makes `name` an instance: "Cls()" (calling it runs
  // Cls.__call__, `name.m()` runs Cls.m).
  std::vector<std::string> alias_targets(TSNode value, int depth = 0) {
    value = unparenthesized(value);
    // `a or b`, `a and b`, `a if c else b`: either side (`widget = widget or
    // self.widget`, then `widget()`).
    if (is(value, kBooleanOperator) || is(value, kConditionalExpression)) {
      std::vector<std::string> out;
      if (depth > 16) return out;  // a long `a or b or ...` chain nests one level per operand
      const bool conditional = is(value, kConditionalExpression);
      std::uint32_t i = 0;
      for (TSNode side : named(value)) {
        if (conditional && i++ == 1) continue;  // the test
        for (auto& t : alias_targets(side, depth + 1)) out.push_back(std::move(t));
      }
      return out;
    }
    if (is(value, kCall)) {
      std::string_view fn = view(field(value, g_.function));
      if (fn != "partial" && fn != "functools.partial" && fn != "staticmethod" && fn != "classmethod") {
        std::string callee = callee_text(field(value, g_.function));
        if (callee.empty() || callee.find("()") != std::string::npos) return {};
        std::vector<std::string> out = scopes_.size() > 1 ? local_callees(callee) : std::vector<std::string>{};
        if (out.empty()) out.push_back(std::move(callee));
        for (auto& t : out) t += "()";
        return out;
      }
      TSNode args = field(value, g_.arguments);
      if (!is(args, kArgumentList) || ts_node_named_child_count(args) == 0) return {};
      value = ts_node_named_child(args, 0);
    }
    std::string t = callee_text(value);
    if (t.empty()) return {};
    if (scopes_.size() > 1) {
      auto local = local_callees(t);
      if (!local.empty()) return local;
    }
    return {t};
  }

  void record_alias(TSNode left, TSNode value, const Ctx& ctx) {
    if (!is(left, kIdentifier) || ts_node_is_null(value) || ctx.type_checking || ctx.main_guard) return;
    std::string_view name = view(left);
    Scope& s = scopes_.back();
    if (s.kind == ScopeKind::Module) {
      if (ctx.deferred) return;
      for (auto& t : alias_targets(value)) out_.aliases.push_back({std::string(name), std::move(t), ts::line(left)});
      return;
    }
    if (s.kind != ScopeKind::Function && s.kind != ScopeKind::Class) return;
    std::vector<std::string> targets = alias_targets(value);
    // A class attribute made from a callable (`__getattr__ = new_method_proxy(getattr)`):
    // kept as "Cls.attr" for the resolver's method lookup.
    if (s.kind == ScopeKind::Class && !ctx.conditional && !ctx.in_try)
      for (const auto& t : targets) out_.aliases.push_back({s.qualified + "." + std::string(name), t, ts::line(left)});
    auto it = std::find_if(s.aliases.begin(), s.aliases.end(), [&](const auto& a) { return a.first == name; });
    // Under an if/try the earlier binding may survive: keep both.
    bool branch = ctx.conditional || ctx.in_try;
    if (it == s.aliases.end()) {
      if (!targets.empty()) s.aliases.emplace_back(name, std::move(targets));
    } else if (branch) {
      it->second.insert(it->second.end(), targets.begin(), targets.end());
    } else if (targets.empty()) {
      s.aliases.erase(it);
    } else {
      it->second = std::move(targets);
    }
  }

  // `for x in p:` in a function, p a parameter (of it or of one around it):
  // calling x calls an element of p, which the model takes as calling p
  // (Django's `_multi_decorate` wraps one decorator in a list and loops).
  // Out of line: visit() recurses once per nesting level (see called_result).
  [[gnu::noinline]] void loop_alias(TSNode target, TSNode iterable) {
    if (scopes_.size() < 2 || !is(target, kIdentifier) || !is(iterable, kIdentifier)) return;
    Scope& s = scopes_.back();
    if (s.kind != ScopeKind::Function) return;
    const std::string_view p = view(iterable);
    if (!local_callees(p).empty() || !parameter_in_scope(p)) return;
    const std::string_view x = view(target);
    auto it = std::find_if(s.aliases.begin(), s.aliases.end(), [&](const auto& a) { return a.first == x; });
    if (it == s.aliases.end()) s.aliases.emplace_back(x, std::vector<std::string>{std::string(p)});
    else it->second.emplace_back(p);
  }

  // StoredParameter: `self.attr = p` / `self.__dict__["attr"] = p` in a
  // method, self its first parameter and p another one.
  [[gnu::noinline]] void record_stored_parameter(TSNode left, TSNode value) {
    if (!is(value, kIdentifier) || scopes_.size() < 2) return;
    const Scope& s = scopes_.back();
    if (s.kind != ScopeKind::Function || s.function_index < 0) return;
    const FunctionInfo& fn = scratch_.functions[s.function_index];
    if (fn.param_count() < 2) return;
    const std::string_view p = view(value);
    if (p == fn.param(0) || !fn.has_param(p)) return;
    std::string attribute;
    if (is(left, kAttribute) && view(field(left, g_.object)) == fn.param(0)) {
      attribute = text(field(left, g_.attribute));
    } else if (is(left, kSubscript) && ts_node_named_child_count(left) == 2) {
      TSNode dict = ts_node_named_child(left, 0);
      if (!is(dict, kAttribute) || view(field(dict, g_.object)) != fn.param(0) ||
          view(field(dict, g_.attribute)) != "__dict__")
        return;
      attribute = string_literal(ts_node_named_child(left, 1));
    }
    if (attribute.empty()) return;
    out_.stored_parameters.push_back({s.function_index, std::move(attribute), std::string(p)});
  }

  // A call event, with local names resolved (one event per alias target).
  void emit_call(const Ctx& ctx, std::string callee, int line) {
    if (scopes_.size() > 1) {
      auto local = local_callees(callee);
      if (!local.empty()) {
        for (auto& t : local) emit(ctx, Event::Kind::Call, std::move(t), line);
        return;
      }
    }
    emit(ctx, Event::Kind::Call, std::move(callee), line);
  }

  // ---- protocol events: what operators, builtins and statements run ---------

  // `((x))` -> `x`.
  TSNode unparenthesized(TSNode n) const {
    while (is(n, kParenthesizedExpression) && ts_node_named_child_count(n) == 1) n = ts_node_named_child(n, 0);
    return n;
  }

  // Values whose protocol methods are the builtins' own (`1 + x`: int's __add__).
  bool builtin_value(TSNode n) const {
    switch (kind(n)) {
      case kInteger: case kFloat: case kString: case kConcatenatedString: case kTrue: case kFalse:
      case kNone: case kList: case kTuple: case kDictionary: case kSet: case kListComprehension:
      case kSetComprehension: case kDictionaryComprehension: case kGeneratorExpression:
        return true;
      default: return false;
    }
  }

  // The operand as the resolver may know it: a dotted name the module scope
  // binds, `self`, or "?" (a local, an expression's value).
  std::string protocol_operand(TSNode n) const {
    std::string t = callee_text(unparenthesized(n));
    if (t.empty()) return "?";
    const std::string_view head = std::string_view(t).substr(0, t.find('.'));
    if (head == "self") return t == "self" ? t : "?";
    if (head == "cls" || !resolves_to_module(head)) return "?";
    return t;
  }

  // `operand.dunder` as a Protocol event, once per body (the line of the
  // first); nothing for a builtin value or inside an annotation.
  [[gnu::noinline]] void emit_protocol(const Ctx& ctx, TSNode operand, std::string_view dunder, int line) {
    if (ctx.annotation || ts_node_is_null(operand) || builtin_value(operand)) return;
    emit_protocol(ctx, protocol_operand(operand), dunder, line);
  }
  void emit_protocol(const Ctx& ctx, std::string name, std::string_view dunder, int line) {
    name += '.';
    name += dunder;
    if (protocols_.size() < sinks_.size()) protocols_.resize(sinks_.size());
    std::unordered_set<std::string>& seen = protocols_[sinks_.size() - 1];
    if (seen.count(name)) return;
    if (emit(ctx, Event::Kind::Protocol, name, line)) seen.insert(std::move(name));
  }

  // The protocol methods an operator node runs on its operands.
  [[gnu::noinline]] void record_operator(TSNode n, const Ctx& ctx) {
    if (ctx.annotation) return;
    const int line = ts::line(n);
    switch (kind(n)) {
      case kBinaryOperator: {
        const auto* d = binary_dunders(view(field(n, g_.operator_)));
        if (!d) return;
        emit_protocol(ctx, field(n, g_.left), d->first, line);
        emit_protocol(ctx, field(n, g_.right), d->second, line);
        return;
      }
      case kUnaryOperator: {
        std::string_view op = view(field(n, g_.operator_));
        std::string_view d = op == "-" ? "__neg__" : op == "+" ? "__pos__" : op == "~" ? "__invert__" : "";
        if (!d.empty()) emit_protocol(ctx, field(n, g_.argument), d, line);
        return;
      }
      case kNotOperator: truth(ctx, field(n, g_.argument), line); return;
      case kBooleanOperator: truth(ctx, field(n, g_.left), line); return;
      case kConditionalExpression:
        if (ts_node_named_child_count(n) == 3) truth(ctx, ts_node_named_child(n, 1), line);
        return;
      case kAssertStatement:
        if (ts_node_named_child_count(n) > 0) truth(ctx, ts_node_named_child(n, 0), line);
        return;
      case kComparisonOperator: {
        // Operands are the named children; the operator tokens sit between them.
        TSNode prev = {};
        std::string op;
        const uint32_t count = ts_node_child_count(n);
        for (uint32_t i = 0; i < count; ++i) {
          TSNode c = ts_node_child(n, i);
          if (!ts_node_is_named(c)) {
            if (!op.empty()) op += ' ';
            op += view(c);
            continue;
          }
          if (kind(c) == kComment) continue;
          if (!ts_node_is_null(prev)) compare(ctx, prev, op, c, line);
          prev = c;
          op.clear();
        }
        return;
      }
      case kSubscript: {
        emit_protocol(ctx, field(n, g_.value), "__getitem__", line);
        subscript_key(ctx, n, line);
        return;
      }
      case kDictionary:
      case kSet:
        for (TSNode c : named(n)) {
          TSNode key = is(c, kPair) ? field(c, g_.key) : c;
          if (!ts_node_is_null(key) && !builtin_value(key)) {
            emit_protocol(ctx, key, "__hash__", line);
            break;
          }
        }
        return;
      case kWithItem: {
        TSNode v = field(n, g_.value);
        if (is(v, kAsPattern) && ts_node_named_child_count(v) > 0) v = ts_node_named_child(v, 0);
        emit_protocol(ctx, v, "__enter__", line);
        return;
      }
      case kInterpolation:
        if (ts_node_named_child_count(n) > 0) {
          TSNode v = ts_node_named_child(n, 0);
          emit_protocol(ctx, v, "__format__", line);
        }
        return;
      default: return;
    }
  }

  // `for v in x`: x.__iter__ (which stands for the iterator's __next__ too).
  void iterate(const Ctx& ctx, TSNode x, int line) { emit_protocol(ctx, x, "__iter__", line); }

  // `if x:`, `not x`, `x and y`: x's truth (__bool__, else __len__).
  void truth(const Ctx& ctx, TSNode v, int line) {
    v = unparenthesized(v);
    if (ts_node_is_null(v) || is(v, kNotOperator) || is(v, kBooleanOperator)) return;  // their own events
    if (is_bool(v)) return;
    emit_protocol(ctx, v, "__bool__", line);
  }

  // A value that is a bool whatever its operands: `a is b`, `k in d`,
  // `isinstance(...)` and the like.
  bool is_bool(TSNode v) const {
    if (is(v, kComparisonOperator)) {
      const uint32_t count = ts_node_child_count(v);
      for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_child(v, i);
        if (ts_node_is_named(c)) continue;
        std::string_view op = view(c);
        if (op != "is" && op != "not" && op != "in" && op != "is not" && op != "not in") return false;
      }
      return true;
    }
    if (is(v, kCall)) {
      std::string_view f = view(field(v, g_.function));
      return f == "isinstance" || f == "issubclass" || f == "hasattr" || f == "callable" || f == "bool";
    }
    return false;
  }

  // `d[k]`: a dict hashes k (a list asks k for __index__).
  void subscript_key(const Ctx& ctx, TSNode n, int line) {
    for (TSNode c : named(n)) {
      if (ts_node_eq(c, field(n, g_.value))) continue;
      if (is(c, kIdentifier) || is(c, kAttribute) || is(c, kCall)) emit_protocol(ctx, c, "__hash__", line);
      return;
    }
  }

  // One comparison of a chain: `a < b` runs a.__lt__, then maybe b.__gt__.
  void compare(const Ctx& ctx, TSNode a, std::string_view op, TSNode b, int line) {
    static constexpr std::tuple<std::string_view, std::string_view, std::string_view> kCompare[] = {
        {"==", "__eq__", "__eq__"}, {"!=", "__ne__", "__ne__"}, {"<", "__lt__", "__gt__"},
        {"<=", "__le__", "__ge__"}, {">", "__gt__", "__lt__"},  {">=", "__ge__", "__le__"},
    };
    if (op == "in" || op == "not in") {
      emit_protocol(ctx, b, "__contains__", line);
      emit_protocol(ctx, a, "__hash__", line);
      return;
    }
    for (const auto& [o, left, right] : kCompare) {
      if (o != op) continue;
      emit_protocol(ctx, a, left, line);
      emit_protocol(ctx, b, right, line);
      return;
    }
  }

  // `a op b` and `a op= b`: (a's method, b's reflected one).
  static const std::pair<std::string_view, std::string_view>* binary_dunders(std::string_view op) {
    static constexpr std::pair<std::string_view, std::pair<std::string_view, std::string_view>> kBinary[] = {
        {"+", {"__add__", "__radd__"}},          {"-", {"__sub__", "__rsub__"}},
        {"*", {"__mul__", "__rmul__"}},          {"/", {"__truediv__", "__rtruediv__"}},
        {"//", {"__floordiv__", "__rfloordiv__"}}, {"%", {"__mod__", "__rmod__"}},
        {"**", {"__pow__", "__rpow__"}},         {"@", {"__matmul__", "__rmatmul__"}},
        {"&", {"__and__", "__rand__"}},          {"|", {"__or__", "__ror__"}},
        {"^", {"__xor__", "__rxor__"}},          {"<<", {"__lshift__", "__rlshift__"}},
        {">>", {"__rshift__", "__rrshift__"}},
    };
    if (op.ends_with('=') && op != "==") op.remove_suffix(1);
    for (const auto& [o, d] : kBinary)
      if (o == op) return &d;
    return nullptr;
  }

  // `x += y`: x.__iadd__, else x.__add__, then y.__radd__.
  [[gnu::noinline]] void record_augmented(TSNode n, const Ctx& ctx) {
    if (ctx.annotation) return;
    std::string_view op = view(field(n, g_.operator_));
    const auto* d = binary_dunders(op);
    if (!d) return;
    const int line = ts::line(n);
    TSNode left = field(n, g_.left);
    emit_protocol(ctx, left, "__i" + std::string(d->first.substr(2)), line);
    emit_protocol(ctx, left, d->first, line);
    emit_protocol(ctx, field(n, g_.right), d->second, line);
  }

  // Builtins that call a protocol method of their first argument (`len(x)`),
  // or iterate it and then compare, hash or add the items; `copy.deepcopy`.
  [[gnu::noinline]] void record_builtin(TSNode call, std::string_view callee, const Ctx& ctx) {
    struct Builtin {
      std::string_view name;
      std::initializer_list<std::string_view> first;  // on the first argument
      std::initializer_list<std::string_view> items;  // on "?", its items
    };
    static const Builtin kBuiltins[] = {
        {"len", {"__len__"}, {}},
        {"hash", {"__hash__"}, {}},
        {"iter", {"__iter__"}, {}},
        {"next", {"__next__"}, {}},
        {"int", {"__int__"}, {}},
        {"float", {"__float__"}, {}},
        {"complex", {"__complex__"}, {}},
        {"abs", {"__abs__"}, {}},
        {"bool", {"__bool__"}, {}},
        {"str", {"__str__"}, {}},
        {"repr", {"__repr__"}, {}},
        {"format", {"__format__"}, {}},
        {"round", {"__round__"}, {}},
        {"divmod", {"__divmod__"}, {}},
        {"pow", {"__pow__"}, {}},
        {"reversed", {"__reversed__"}, {}},
        {"list", {"__iter__"}, {}},
        {"tuple", {"__iter__"}, {}},
        {"enumerate", {"__iter__"}, {}},
        {"sorted", {"__iter__"}, {"__lt__"}},
        {"min", {"__iter__"}, {"__lt__"}},
        {"max", {"__iter__"}, {"__gt__"}},
        {"set", {"__iter__"}, {"__hash__"}},
        {"frozenset", {"__iter__"}, {"__hash__"}},
        {"sum", {"__iter__"}, {"__add__", "__radd__"}},
        {"any", {"__iter__"}, {"__bool__"}},
        {"all", {"__iter__"}, {"__bool__"}},
        {"print", {"__str__"}, {}},
        // The standard library's own protocols (Django's form fields deep-copy
        // their widgets when a Form class is made).
        {"copy.deepcopy", {"__deepcopy__"}, {}},
        {"deepcopy", {"__deepcopy__"}, {}},
        {"copy.copy", {"__copy__"}, {}},
    };
    const Builtin* b = nullptr;
    for (const Builtin& x : kBuiltins)
      if (x.name == callee) b = &x;
    // (Every call comes here: the table first, the scopes only for a match.)
    if (!b || !resolves_to_module(callee.substr(0, callee.find('.')))) return;
    TSNode args = field(call, g_.arguments);
    if (!is(args, kArgumentList) || ts_node_named_child_count(args) == 0) return;
    TSNode first = ts_node_named_child(args, 0);
    if (is(first, kKeywordArgument)) return;
    const int line = ts::line(call);
    for (std::string_view d : b->first) emit_protocol(ctx, first, d, line);
    for (std::string_view d : b->items) emit_protocol(ctx, std::string("?"), d, line);
  }

  // `__name__ == "__main__"` (1), `__name__ != "__main__"` (-1), or neither (0).
  int main_test(TSNode cond) const {
    if (ts_node_is_null(cond)) return 0;
    if (kind(cond) == kParenthesizedExpression && ts_node_named_child_count(cond) == 1)
      return main_test(ts_node_named_child(cond, 0));
    std::string t;
    for (char c : view(cond))
      if (c != ' ' && c != '\t') t += c == '\'' ? '"' : c;
    if (t == "__name__==\"__main__\"" || t == "\"__main__\"==__name__") return 1;
    if (t == "__name__!=\"__main__\"" || t == "\"__main__\"!=__name__") return -1;
    return 0;
  }

  // The innermost function, class or module scope (the module's, always there,
  // when nothing else is).
  std::vector<Scope>::const_reverse_iterator innermost_named_scope() const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (it->kind == ScopeKind::Function || it->kind == ScopeKind::Class || it->kind == ScopeKind::Module) return it;
    return scopes_.rend() - 1;
  }

  const std::string& current_scope_name() const { return innermost_named_scope()->qualified; }

  // Does `name`, looked up from the innermost scope, resolve to the module scope?
  bool resolves_to_module(std::string_view name) const {
    for (std::size_t i = scopes_.size(); i-- > 1;) {
      const Scope& s = scopes_[i];
      // Class scopes are visible only to code directly in the class body.
      if (s.kind == ScopeKind::Class && i != scopes_.size() - 1) continue;
      if (contains(s.globals, name)) return true;
      if (s.kind != ScopeKind::Class && contains(s.locals, name)) return false;
    }
    return true;
  }

  // ---- local-name collection for a function/lambda/comprehension ----------

  void collect_store_names(TSNode target, std::vector<std::string_view>& into) {
    if (ts_node_is_null(target)) return;
    switch (kind(target)) {
      case kIdentifier: into.push_back(view(target)); return;
      case kAttribute:
      case kSubscript: return;
      default:
        for (TSNode c : named(target)) collect_store_names(c, into);
    }
  }

  // `params`: the named children of a parameters node.
  void collect_parameters(const ts::ChildList& params, Scope& s) {
    for (TSNode p : params) {
      switch (kind(p)) {
        case kIdentifier: s.locals.push_back(view(p)); break;
        case kDefaultParameter:
        case kTypedDefaultParameter: collect_store_names(field(p, g_.name), s.locals); break;
        case kTypedParameter:
          for (TSNode c : named(p))
            if (!is(c, kType)) collect_store_names(c, s.locals);
          break;
        case kListSplatPattern:
        case kDictionarySplatPattern:
        case kTuplePattern: collect_store_names(p, s.locals); break;
        default: break;
      }
    }
  }

  // Names bound in a function body (not descending into nested scopes, whose
  // own names are their business, but counting the nested definitions' names).
  void collect_locals(TSNode n, Scope& s, int depth) {
    if (depth > kMaxDepth) return;
    Kind k = kind(n);
    switch (k) {
      case kFunctionDefinition:
      case kClassDefinition: s.locals.push_back(view(field(n, g_.name))); return;
      case kLambda: return;
      case kListComprehension:
      case kSetComprehension:
      case kDictionaryComprehension:
      case kGeneratorExpression:
        // Walrus targets inside a comprehension bind in the enclosing function.
        if (ts_node_has_error(n) || view(n).find(":=") != std::string_view::npos)
          collect_walrus(n, s, depth + 1);
        return;
      case kGlobalStatement:
        for (TSNode c : named(n)) s.globals.push_back(view(c));
        return;
      case kNonlocalStatement:
        for (TSNode c : named(n)) s.locals.push_back(view(c));
        return;
      case kAssignment:
      case kAugmentedAssignment:
      case kForStatement:
      case kForInClause: collect_store_names(field(n, g_.left), s.locals); break;
      case kAsPatternTarget: collect_store_names(n, s.locals); break;
      case kExceptClause: {
        // `except E as name`: older grammars put the alias in an as_pattern, handled above.
        TSNode alias = field(n, g_.alias);
        if (!ts_node_is_null(alias)) collect_store_names(alias, s.locals);
        break;
      }
      case kNamedExpression: collect_store_names(field(n, g_.name), s.locals); break;
      case kDeleteStatement:
        for (TSNode c : named(n)) collect_store_names(c, s.locals);
        break;
      case kImportStatement:
      case kImportFromStatement: {
        const ImportStatement& st = parsed_import(n);
        for (auto& b : st.bound_names()) {
          std::string_view v = own(std::move(b));
          s.locals.push_back(v);
          s.import_locals.push_back(v);
        }
        return;
      }
      case kIdentifier:
        return;  // a leaf
      default:
        // Most of a body is expressions, which bind nothing without `:=` or `as`.
        if (g_.is_expression(n) && !ts_node_has_error(n) && !may_bind(view(n))) return;
        break;
    }
    for (TSNode c : named(n)) collect_locals(c, s, depth + 1);
  }

  void collect_walrus(TSNode n, Scope& s, int depth) {
    if (depth > kMaxDepth) return;
    Kind k = kind(n);
    if (k == kNamedExpression) collect_store_names(field(n, g_.name), s.locals);
    if (k == kLambda || k == kFunctionDefinition || k == kClassDefinition || k == kIdentifier) return;
    for (TSNode c : named(n)) collect_walrus(c, s, depth + 1);
  }

  // ---- imports ------------------------------------------------------------

  std::string dotted(TSNode n) {
    // Text made only of identifier bytes and single dots between them, in a
    // node without errors, is exactly the identifiers joined by dots (a
    // comment, a space or a line continuation would show): no child walk.
    if (std::string_view t = view(n); plain_dotted(t) && !ts_node_has_error(n)) return std::string(t);
    // dotted_name text may contain spaces/comments in odd code; rebuild from identifiers.
    std::string out;
    for (TSNode c : named(n)) {
      if (!is(c, kIdentifier)) continue;
      if (!out.empty()) out += '.';
      out += view(c);
    }
    return out;
  }

  // parse_import(n) of an import statement, kept until record_import takes it:
  // the pre-pass and a function's local names read the same statements the
  // visit records.
  const ImportStatement& parsed_import(TSNode n) {
    auto [it, fresh] = parsed_imports_.try_emplace(n.id);
    if (fresh || it->second.first != ts_node_start_byte(n)) {
      it->second.first = ts_node_start_byte(n);
      it->second.second = ImportStatement{};
      parse_import(n, it->second.second);
    }
    return it->second.second;
  }
  ImportStatement take_parsed_import(TSNode n) {
    auto it = parsed_imports_.find(n.id);
    if (it != parsed_imports_.end() && it->second.first == ts_node_start_byte(n)) {
      ImportStatement st = std::move(it->second.second);
      parsed_imports_.erase(it);
      return st;
    }
    ImportStatement st;
    parse_import(n, st);
    return st;
  }

  void parse_import(TSNode n, ImportStatement& st) {
    st.is_from = is(n, kImportFromStatement);
    TSNode mod{};
    if (st.is_from) {
      mod = field(n, g_.module_name);
      if (is(mod, kRelativeImport)) {
        for (TSNode c : named(mod)) {
          if (is(c, kImportPrefix)) {
            auto p = view(c);
            st.level = static_cast<int>(std::count(p.begin(), p.end(), '.'));
          } else if (is(c, kDottedName)) {
            st.module = dotted(c);
          }
        }
      } else if (!ts_node_is_null(mod)) {
        st.module = dotted(mod);
      }
    }
    for (TSNode c : named(n)) {
      Kind k = kind(c);
      if (k == kWildcardImport) {
        st.star = true;
        continue;
      }
      if (st.is_from && ts_node_eq(c, mod)) continue;
      if (k == kDottedName) {
        st.names.push_back({dotted(c), ""});
      } else if (k == kAliasedImport) {
        st.names.push_back({dotted(field(c, g_.name)), text(field(c, g_.alias))});
      }
    }
    fit(st.names);  // most statements name one or two: no doubling slack (a large tree has 0.7 M)
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

  // A `lazy` keyword CPython 3.15 refuses: its SyntaxError at the keyword.
  void misplaced_lazy(const LazyKeyword& k, TSNode statement, std::string message) {
    TSPoint p = lazy_point(k, statement);
    out_.syntax_problems.push_back(
        {static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1, "SyntaxError: " + std::move(message)});
  }
  // Row and column of a `lazy` keyword, from those of the statement it
  // prefixes (a backslash continuation may put it on a line above).
  TSPoint lazy_point(const LazyKeyword& k, TSNode statement) const {
    TSPoint p = ts_node_start_point(statement);
    uint32_t line_start = k.lazy_begin;
    while (line_start > 0 && src_[line_start - 1] != '\n') --line_start;
    for (uint32_t i = k.lazy_begin; i < k.statement_begin; ++i)
      if (src_[i] == '\n') --p.row;
    return {p.row, k.lazy_begin - line_start};
  }

  // PEP 810: is the statement lazy, by its `lazy` keyword or by `__lazy_modules__`?
  void read_laziness(ImportStatement& st, TSNode n, const Ctx& ctx) {
    const LazyKeyword* k = lazy_.empty() ? nullptr : find_lazy_keyword(lazy_, st.stmt_begin);
    if (k) {
      st.has_lazy_keyword = true;
      st.stmt_begin = k->lazy_begin;
      st.line = static_cast<int>(lazy_point(*k, n).row) + 1;
      st.text = std::string(src_.substr(st.stmt_begin, st.stmt_end - st.stmt_begin));
      const std::string what = st.is_from ? "lazy from ... import" : "lazy import";
      if (ctx.lazy_in_try) return misplaced_lazy(*k, n, what + " not allowed inside try/except blocks");
      if (ctx.lazy_scope) return misplaced_lazy(*k, n, what + " not allowed inside " + ctx.lazy_scope);
      if (st.star) return misplaced_lazy(*k, n, "lazy from ... import * is not allowed");
      st.is_lazy = true;
      return;
    }
    // `__lazy_modules__` applies where `lazy` would be allowed; the names are
    // absolute module names (relative imports are left eager here).
    if (!out_.lazy_modules || ctx.lazy_in_try || ctx.lazy_scope || st.star || st.level > 0) return;
    const auto& listed = *out_.lazy_modules;
    auto named = [&](const std::string& m) { return std::find(listed.begin(), listed.end(), m) != listed.end(); };
    if (st.is_from) {
      st.is_lazy = named(st.module);
    } else {
      st.is_lazy = !st.names.empty() &&
                   std::all_of(st.names.begin(), st.names.end(), [&](const ImportAlias& a) { return named(a.name); });
    }
  }

  void record_import(TSNode n, const Ctx& ctx) {
    ImportStatement st = take_parsed_import(n);
    st.line = ts::line(n);
    st.stmt_begin = ts_node_start_byte(n);
    st.stmt_end = ts_node_end_byte(n);
    st.text = text(n);
    read_laziness(st, n, ctx);
    st.scope = current_scope_name();
    bool in_function = ctx.deferred;
    if (in_function) st.context = ImportContext::FunctionBody;
    else if (ctx.type_checking) st.context = ImportContext::TypeChecking;
    else if (ctx.main_guard) st.context = ImportContext::MainGuard;
    else if (ctx.class_body) st.context = ImportContext::ClassBody;
    else if (ctx.in_try) st.context = ImportContext::TryExcept;
    else if (ctx.tc_else) st.context = ImportContext::TypeCheckingElse;
    else if (ctx.conditional) st.context = ImportContext::ConditionalIf;
    else st.context = ImportContext::ModuleLevel;
    st.at_import_time = st.context != ImportContext::FunctionBody &&
                        st.context != ImportContext::TypeChecking &&
                        st.context != ImportContext::MainGuard;
    st.guards_import_error = ctx.in_try && ctx.guards_import_error;
    compute_span(st);
    emit(ctx, Event::Kind::Import, {}, st.line, static_cast<int>(scratch_.imports.size()));
    if (!in_function && st.context != ImportContext::ClassBody) {
      for (auto& b : st.bound_names()) {
        module_import_names_.insert(b);
        if (!ctx.type_checking)
          scratch_.definitions.push_back({b, Definition::Kind::Import, st.line, st.stmt_begin, st.stmt_end,
                                          st.line + static_cast<int>(std::count(st.text.begin(), st.text.end(), '\n'))});
      }
    }
    scratch_.imports.push_back(std::move(st));
  }

  // ---- uses -----------------------------------------------------------------

  // A read of identifier `id`; `attrs` (outermost first) are the names of the
  // attribute chain built on it, as in `id.a.b` (attrs = {"b", "a"}).
  // The innermost function scope that binds `name` by an import in its own body.
  bool bound_by_local_import(std::string_view name) const {
    for (std::size_t i = scopes_.size(); i-- > 1;) {
      const Scope& s = scopes_[i];
      if (s.kind == ScopeKind::Class && i != scopes_.size() - 1) continue;
      if (contains(s.globals, name)) return false;
      if (s.kind != ScopeKind::Class && contains(s.locals, name)) return contains(s.import_locals, name);
    }
    return false;
  }

  void record_use(TSNode id, const Ctx& ctx, const std::vector<std::string_view>& attrs) {
    std::string_view name = view(id);
    if (name == "self" && !attrs.empty()) record_self_read(id, ctx, attrs);
    if (!attrs.empty() && ctx.deferred && bound_by_local_import(name)) {
      // `mod.attr` on a module imported inside this function: the simulator checks it.
      std::string dotted(name);
      for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
        dotted += '.';
        dotted += *it;
      }
      emit(ctx, Event::Kind::Use, std::move(dotted), ts::line(id));
      if (int sink = sinks_.back(); sink >= 0 && !ctx.type_checking)
        current_events().back().local = true;
      return;
    }
    // Only uses of names that module-level imports bind are kept (finish()).
    if (prefilter_ && !maybe_imported_.count(name)) return;
    if (!resolves_to_module(name)) return;
    NameUse u;
    // Attribute chain starting at this identifier: a.b.c
    std::size_t len = name.size();
    for (auto a : attrs) len += 1 + a.size();
    u.dotted.reserve(len);
    u.dotted = name;
    for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
      u.dotted += '.';
      u.dotted += *it;
    }
    classify(u, ctx);
    int line = ts::line(id);
    // Attribute reads (`mod.attr`) can fail on a partial module; a bare name can
    // fail only when it reifies a lazy import (PEP 810), which the simulator
    // decides (imports become lazy by `lazy`, `__lazy_modules__` or entry mode).
    if (u.kind != UseKind::Annotation || u.eager) {
      if (emit(ctx, Event::Kind::Use, u.dotted, line) && u.kind == UseKind::Annotation)
        current_events().back().annotation = true;
    }
    u.line = line;
    u.begin = ts_node_start_byte(id);
    u.end = ts_node_end_byte(id);
    candidates_.push_back(std::move(u));
  }

  // `self.attr` read in a method: a Use event "self.attr", once per body,
  // which runs a property's getter of self's class (CalleeResolver::
  // instance_attribute). Not for `self.m()` or `self.x = v`, whose last
  // attribute is called or stored, nor for dunders.
  [[gnu::noinline]] void record_self_read(TSNode id, const Ctx& ctx, const std::vector<std::string_view>& attrs) {
    if (!ctx.deferred || ctx.annotation) return;
    if (attrs.size() == 1 && chain_top_ == not_read_top_) return;
    const std::string_view attr = attrs.back();
    if (attr.starts_with("__")) return;
    std::string name = "self.";
    name += attr;
    if (protocols_.size() < sinks_.size()) protocols_.resize(sinks_.size());
    std::unordered_set<std::string>& seen = protocols_[sinks_.size() - 1];  // no protocol name is "self.attr"
    if (seen.count(name)) return;
    if (emit(ctx, Event::Kind::Use, name, ts::line(id))) seen.insert(std::move(name));
  }

  void classify(NameUse& u, const Ctx& ctx) const {
    if (auto named = innermost_named_scope(); named->kind == ScopeKind::Class) u.scope_class = named->class_index;
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (it->kind == ScopeKind::Function) {
        u.function = it->function_index;
        break;
      }
    if (ctx.annotation) {
      u.kind = UseKind::Annotation;
      u.eager = !out_.future_annotations && !ctx.local_var_annotation;
      u.where = "annotation";
      u.annotation_begin = ctx.annotation_begin;
      u.annotation_end = ctx.annotation_end;
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
    auto kids = named(str);
    for (TSNode c : kids) {
      if (is(c, kInterpolation)) return;  // an f-string is not an annotation we can read
    }
    std::string_view body;
    for (TSNode c : kids) {
      if (is(c, kStringContent)) body = view(c);
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
          std::string_view name = body.substr(i, j - i);
          if ((!prefilter_ || maybe_imported_.count(name)) && resolves_to_module(name)) {
            NameUse u;
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
    std::vector<std::string_view> names;
    collect_store_names(target, names);
    if (names.empty()) return;
    sort_unique(names);
    int line = ts::line(target);
    uint32_t begin = ts_node_start_byte(target);
    // The module-level statement holding it: the one run() is visiting
    // (ts_node_parent costs a walk down from the root per call).
    TSNode top = top_statement_;
    if (ts_node_is_null(top) || ts_node_start_byte(top) > begin || ts_node_end_byte(top) < ts_node_end_byte(target)) {
      top = target;
      for (TSNode p = ts_node_parent(top); !ts_node_is_null(p) && std::strcmp(ts_node_type(p), "module") != 0;
           p = ts_node_parent(p))
        top = p;
    }
    const uint32_t end = ts_node_end_byte(top);
    const int end_line = static_cast<int>(ts_node_end_point(top).row) + 1;
    for (auto n : names) {
      scratch_.definitions.push_back({std::string(n), kind, line, begin, end, end_line});
      emit(ctx, Event::Kind::Bind, std::string(n), line);
    }
  }

  // ---- the walk -------------------------------------------------------------

  void visit_block(TSNode n, const Ctx& ctx, int depth) {
    const ts::ChildList kids = named(n);
    visit_statements(kids.begin(), kids.end(), ctx, depth);
  }

  // Statements [from, to) of one block. Inlined: visit_block's frame is on the
  // stack once per nesting level, and the deep-nesting limit must hold under
  // AddressSanitizer's larger frames too.
  [[gnu::always_inline]] inline void visit_statements(const TSNode* from, const TSNode* to, const Ctx& ctx,
                                                      int depth) {
    for (const TSNode* c = from; c != to; ++c) {
      visit(*c, ctx, depth + 1);
      if (ctx.deferred && is(*c, kIfStatement) && exits_early(*c)) return visit_after_exit(*c, c + 1, to, ctx, depth);
    }
  }

  // In a function body, what follows `if T: ... return` (or raise) runs only
  // when T is false: under the guard !(T) when the simulator decides T, in a
  // conditional branch otherwise. Out of line, with the new context on its own
  // frame (see visit_statements).
  [[gnu::noinline]] void visit_after_exit(TSNode exit, const TSNode* from, const TSNode* to, const Ctx& ctx,
                                          int depth) {
    Ctx rest = ctx;
    std::string test = decided_test(field(exit, g_.condition));
    if (!test.empty()) rest.guard = guard_and(rest.guard, "!(" + test + ")");
    else rest.conditional = true;
    visit_statements(from, to, rest, depth);
  }

  // `if T:` with no elif or else whose body ends by leaving the function.
  [[gnu::noinline]] bool exits_early(TSNode n) {
    TSNode body = field(n, g_.consequence);
    if (ts_node_is_null(body)) return false;
    TSNode last = {};
    for (TSNode c : named(n))
      if (kind(c) == kElifClause || kind(c) == kElseClause) return false;
    for (TSNode c : named(body))
      if (kind(c) != kComment) last = c;
    if (ts_node_is_null(last)) return false;
    const std::string_view type = ts_node_type(last);
    return type == "return_statement" || type == "raise_statement";
  }

  void visit_children(TSNode n, const Ctx& ctx, int depth) { visit_block(n, ctx, depth); }

  // An attribute node `n` at `depth` (already checked): walks down its object
  // chain; a chain on an identifier is one use of the whole dotted name, any
  // other base is visited.
  void visit_attribute(TSNode n, const Ctx& ctx, int depth) {
    attr_chain_.clear();
    chain_top_ = n.id;
    chain_end_ = ChainEnd::Cut;
    for (;;) {
      attr_chain_.push_back(view(field(n, g_.attribute)));
      if (attr_chain_.back() == "__annotations__") mark_reads_annotations();
      TSNode obj = field(n, g_.object);
      ++depth;
      if (ts_node_is_null(obj) || too_deep(obj, depth)) return;
      Kind k = kind(obj);
      if (k == kAttribute) {
        n = obj;
        continue;
      }
      if (k == kIdentifier) {
        chain_end_ = ChainEnd::Identifier;
        chain_base_ = view(obj);
        record_use(obj, ctx, attr_chain_);
      } else {
        chain_end_ = ChainEnd::Other;
        visit(obj, ctx, depth);
      }
      return;
    }
  }

  // callee_text(fn) for the `fn` just visited: an attribute chain is rebuilt
  // from what visit_attribute saw instead of walking it again.
  std::string callee_of_visited(TSNode fn) const {
    if (ts_node_is_null(fn) || fn.id != chain_top_ || !is(fn, kAttribute)) return callee_text(fn);
    switch (chain_end_) {
      case ChainEnd::Other: return {};
      case ChainEnd::Cut: return callee_text(fn);
      case ChainEnd::Identifier: break;
    }
    if (chain_base_.empty()) return {};
    std::size_t len = chain_base_.size();
    for (auto a : attr_chain_) len += 1 + a.size();
    std::string out;
    out.reserve(len);
    out = chain_base_;
    for (auto it = attr_chain_.rbegin(); it != attr_chain_.rend(); ++it) {
      out += '.';
      out += *it;
    }
    return out;
  }

  // A store target: identifiers bind, attribute objects and subscripts load.
  void visit_target(TSNode n, const Ctx& ctx, int depth) {
    if (ts_node_is_null(n) || too_deep(n, depth)) return;
    switch (kind(n)) {
      case kIdentifier: return;
      case kAttribute:
        not_read_top_ = n.id;
        visit_attribute(n, ctx, depth);
        return;
      case kSubscript:
        emit_protocol(ctx, field(n, g_.value), "__setitem__", ts::line(n));
        subscript_key(ctx, n, ts::line(n));
        visit_children(n, ctx, depth);
        return;
      default:
        for (TSNode c : named(n)) visit_target(c, ctx, depth + 1);
    }
  }

  void visit_annotation(TSNode type_node, const Ctx& ctx, int depth, bool local_var = false) {
    if (ts_node_is_null(type_node)) return;
    Ctx a = ctx;
    a.annotation = true;
    a.local_var_annotation = local_var;
    a.annotation_begin = ts_node_start_byte(type_node);
    a.annotation_end = ts_node_end_byte(type_node);
    visit(type_node, a, depth + 1);
  }

  // `params`: the named children of a parameters node.
  void visit_parameters(const ts::ChildList& params, const Ctx& outer, int depth) {
    for (TSNode p : params) {
      Kind k = kind(p);
      if (k == kDefaultParameter || k == kTypedDefaultParameter) {
        Ctx d = outer;
        d.where = "default value";
        visit(field(p, g_.value), d, depth + 1);
        visit_annotation(field(p, g_.type), outer, depth);
      } else if (k == kTypedParameter) {
        visit_annotation(field(p, g_.type), outer, depth);
      }
    }
  }

  // Decorators are applied (called) after the definition is made, then the name is bound.
  void apply_decorators(const std::vector<std::string>& decorators, const Ctx& ctx, int line) {
    // A factory's call (`@name(args)`, kept as "name()") was made where the
    // decorator expression was visited.
    for (auto it = decorators.rbegin(); it != decorators.rend(); ++it)
      if (!it->empty() && !it->ends_with("()")) emit(ctx, Event::Kind::Call, *it, line);
  }

  void visit_function(TSNode n, const Ctx& ctx, int depth, uint32_t def_begin,
                      const std::vector<std::string>& decorators = {}) {
    TSNode name_node = field(n, g_.name);
    TSNode params = field(n, g_.parameters);
    std::string name = text(name_node);
    std::string qualified = qualify(name);
    Scope s{ScopeKind::Function, qualified, qualified, {}, {}, {}, {}, {}};
    std::vector<std::string> positional;
    std::size_t parameter_locals = 0;  // s.locals' first entries, from the parameters
    {
      ts::ChildList param_list = named(params);
      // Parameters' defaults and annotations, and the return annotation, are
      // evaluated where the def statement runs.
      visit_parameters(param_list, ctx, depth);
      visit_annotation(field(n, g_.return_type), ctx, depth);
      apply_decorators(decorators, ctx, ts::line(n));
      define(name_node, Definition::Kind::Function, ctx);
      define_nested(view(name_node), qualified);
      collect_parameters(param_list, s);
      parameter_locals = s.locals.size();
      for (TSNode p : param_list) {
        switch (kind(p)) {
          case kIdentifier: positional.push_back(text(p)); break;
          case kDefaultParameter:
          case kTypedDefaultParameter: positional.push_back(text(field(p, g_.name))); break;
          case kTypedParameter:
            for (TSNode c : named(p))
              if (is(c, kIdentifier)) {
                positional.push_back(text(c));
                break;
              }
            break;
          default: break;
        }
      }
    }
    TSNode body = field(n, g_.body);
    if (!ts_node_is_null(body)) {
      memoize_ = true;
      collect_locals(body, s, depth + 1);
      memoize_ = false;
    }
    // A metaclass's __new__/__init__(mcs, name, bases, ns) whose body leaves
    // `bases` alone (does not bind it, nor declare it global): its tests of
    // `bases` are decided per class statement (bases_test).
    std::string bases_param;
    if (scopes_.back().kind == ScopeKind::Class && (name == "__new__" || name == "__init__") && positional.size() >= 4 &&
        std::find(s.locals.begin() + static_cast<std::ptrdiff_t>(parameter_locals), s.locals.end(), positional[2]) ==
            s.locals.end() &&
        std::find(s.globals.begin(), s.globals.end(), positional[2]) == s.globals.end())
      bases_param = positional[2];
    // Bound by something other than an import: pushed to locals more often
    // than to import_locals (each import binding goes to both once).
    std::vector<std::string_view> otherwise;
    {
      std::vector<std::string_view> all = s.locals, imported = s.import_locals;
      std::sort(all.begin(), all.end());
      std::sort(imported.begin(), imported.end());
      std::set_difference(all.begin(), all.end(), imported.begin(), imported.end(), std::back_inserter(otherwise));
      sort_unique(otherwise);
    }
    sort_unique(s.locals);
    sort_unique(s.globals);
    sort_unique(s.import_locals);

    FunctionInfo f;
    f.qualified_name = std::move(qualified);
    if (scopes_.back().kind == ScopeKind::Class) {
      const std::string& q = scopes_.back().qualified;
      auto dot = q.rfind('.');
      f.class_name = dot == std::string::npos ? q : q.substr(dot + 1);
    }
    f.is_async = ts_node_child_count(n) > 0 && is(ts_node_child(n, 0), kAsync);
    f.line = ts::line(n);
    f.begin = def_begin;
    f.end = ts_node_end_byte(n);
    f.body_begin = ts_node_is_null(body) ? f.end : ts_node_start_byte(body);
    f.body_line = ts_node_is_null(body) ? f.line : ts::line(body);
    if (!ts_node_is_null(body) && ts_node_named_child_count(body) > 0) {
      TSNode first = ts_node_named_child(body, 0);
      if (is(first, kExpressionStatement) && ts_node_named_child_count(first) == 1 &&
          is(ts_node_named_child(first, 0), kString))
        f.docstring_end = ts_node_end_byte(first);
    }
    f.locals.assign(s.locals.begin(), s.locals.end());
    {
      std::vector<std::string_view> import_only;
      std::set_difference(s.locals.begin(), s.locals.end(), otherwise.begin(), otherwise.end(),
                          std::back_inserter(import_only));
      f.import_only.assign(import_only.begin(), import_only.end());
    }
    f.globals.assign(s.globals.begin(), s.globals.end());
    f.param_locals.reserve(positional.size());
    for (const std::string& p : positional) {
      auto it = std::lower_bound(f.locals.begin(), f.locals.end(), p);
      if (it != f.locals.end() && *it == p) f.param_locals.push_back(static_cast<std::uint32_t>(it - f.locals.begin()));
    }
    f.decorators = decorators;
    scratch_.functions.push_back(std::move(f));
    s.function_index = static_cast<int>(scratch_.functions.size() - 1);

    scopes_.push_back(std::move(s));
    const std::size_t index = scratch_.functions.size() - 1;
    push_sink(static_cast<int>(index));
    Ctx inner = ctx;
    inner.deferred = true;
    inner.class_body = false;
    inner.annotation = false;
    inner.type_checking = false;
    inner.in_try = inner.guards_import_error = false;
    inner.lazy_in_try = false;
    inner.lazy_scope = "functions";
    inner.try_end = 0;
    inner.catches = 0;
    inner.conditional = false;
    inner.if_branch = false;
    inner.guard.clear();
    inner.where = "function body";
    // A metaclass's __new__/__init__(mcs, name, bases, ns): its tests of
    // `bases` are decided per class statement (bases_test).
    const int saved_bases_function = bases_function_;
    std::string saved_bases_param = std::exchange(bases_param_, std::move(bases_param));
    bases_function_ = bases_param_.empty() ? -1 : static_cast<int>(index);
    ++open_functions_;
    if (!ts_node_is_null(body)) visit_block(body, inner, depth);
    --open_functions_;
    bases_function_ = saved_bases_function;
    bases_param_ = std::move(saved_bases_param);
    pop_sink(&scratch_.functions[index].events);
    scopes_.pop_back();
    if (open_functions_ == 0) pool_.forget();  // keeps the memo small
  }

  void visit_class(TSNode n, const Ctx& ctx, int depth, const std::vector<std::string>& decorators = {}) {
    TSNode name_node = field(n, g_.name);
    std::string name = text(name_node);
    ClassInfo info;
    info.qualified_name = qualify(name);
    info.line = ts::line(n);
    std::string metaclass;
    TSNode supers = field(n, g_.superclasses);
    if (!ts_node_is_null(supers)) {
      for (TSNode a : named(supers)) {
        Ctx b = ctx;
        if (is(a, kKeywordArgument)) {
          b.where = "class keyword";
          TSNode value = field(a, g_.value);
          visit(value, b, depth + 1);
          if (view(field(a, g_.name)) == "metaclass") metaclass = local_callee(callee_text(value));
        } else {
          b.where = "base class";
          visit(a, b, depth + 1);
          std::string base = local_callee(callee_text(a));
          if (!base.empty()) {
            info.bases.push_back(std::move(base));
          } else {
            info.bases_complete = false;
            // `class Manager(BaseManager.from_queryset(QuerySet))`: a class
            // that a call makes, kept as "BaseManager.from_queryset()".
            std::string made = is(a, kCall) ? local_callee(callee_text(field(a, g_.function))) : std::string();
            if (!made.empty() && made.find("()") == std::string::npos) info.bases.push_back(made + "()");
          }
        }
      }
    }
    info.metaclass = metaclass;
    info.decorators = decorators;
    define_nested(view(name_node), info.qualified_name);
    scratch_.classes.push_back(info);
    Scope s{ScopeKind::Class, std::move(info.qualified_name), current_function(), {}, {}, {}, {}, {}};
    s.class_index = static_cast<int>(scratch_.classes.size() - 1);
    scopes_.push_back(std::move(s));
    Ctx inner = ctx;
    inner.class_body = !ctx.deferred;
    inner.where = "class body";
    inner.lazy_in_try = false;
    inner.lazy_scope = "classes";
    TSNode body = field(n, g_.body);
    if (!ts_node_is_null(body)) visit_block(body, inner, depth);
    scopes_.pop_back();
    // The class body has run; the metaclass makes the class (an inherited one
    // too), the bases' __init_subclass__ run, decorators wrap it. The resolver
    // reads `Base.__init_subclass__` as all of what creating a subclass runs.
    if (!metaclass.empty()) emit(ctx, Event::Kind::Call, metaclass, info.line);
    for (const std::string& base : info.bases) emit(ctx, Event::Kind::Call, base + ".__init_subclass__", info.line);
    apply_decorators(decorators, ctx, info.line);
    define(name_node, Definition::Kind::Class, ctx);
  }

  void visit_lambda(TSNode n, const Ctx& ctx, int depth) {
    ts::ChildList param_list = named(field(n, g_.parameters));
    visit_parameters(param_list, ctx, depth);
    Scope s{ScopeKind::Lambda, current_scope_name(), current_function(), {}, {}, {}, {}, {}};
    collect_parameters(param_list, s);
    sort_unique(s.locals);
    scopes_.push_back(std::move(s));
    push_sink(-2);
    Ctx inner = ctx;
    inner.deferred = true;
    inner.where = "lambda body";
    visit(field(n, g_.body), inner, depth + 1);
    pop_sink(nullptr);
    scopes_.pop_back();
  }

  // The children of a for_in_clause other than its target, visited.
  void visit_for_in_clause(TSNode c, const Ctx& ctx, int depth) {
    TSNode left = field(c, g_.left);
    iterate(ctx, field(c, g_.right), ts::line(c));
    for (TSNode r : named(c)) {
      if (!ts_node_eq(r, left)) visit(r, ctx, depth + 1);
    }
  }

  void visit_comprehension(TSNode n, const Ctx& ctx, int depth) {
    // The first iterable is evaluated in the enclosing scope; the rest in the
    // comprehension's own scope, where its targets are local.
    Scope s{ScopeKind::Comprehension, current_scope_name(), current_function(), {}, {}, {}, {}, {}};
    auto kids = named(n);
    bool first = true;
    for (TSNode c : kids) {
      if (is(c, kForInClause)) {
        collect_store_names(field(c, g_.left), s.locals);
        if (first) {
          visit_for_in_clause(c, ctx, depth);
          first = false;
        }
      }
    }
    sort_unique(s.locals);
    scopes_.push_back(std::move(s));
    bool first_clause = true;
    for (TSNode c : kids) {
      if (is(c, kForInClause)) {
        if (first_clause) {
          first_clause = false;
          continue;
        }
        visit_for_in_clause(c, ctx, depth);
      } else {
        visit(c, ctx, depth + 1);
      }
    }
    scopes_.pop_back();
  }

  int intern_guard(const std::string& g) {
    auto it = std::find(out_.guards.begin(), out_.guards.end(), g);
    if (it != out_.guards.end()) return static_cast<int>(it - out_.guards.begin());
    out_.guards.push_back(g);
    return static_cast<int>(out_.guards.size() - 1);
  }

  static std::string guard_and(const std::string& outer, const std::string& atom) {
    return outer.empty() ? atom : outer + "&&" + atom;
  }

  // A test's text without spaces, line continuations, and with one kind of
  // quote: what static_test and bases_test read.
  std::string compact_text(TSNode cond) const {
    std::string t;
    for (char ch : view(cond)) {
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\\') continue;
      t += ch == '\'' ? '"' : ch;
    }
    return t;
  }

  // A test the simulator decides: static_test, or in a metaclass's
  // `__new__`/`__init__` a test of the bases of the class being made.
  std::string decided_test(TSNode cond) {
    std::string t = static_test(cond);
    return t.empty() ? bases_test(cond) : t;
  }

  // `bases == (A, B.C)` or `!=` (a tuple of dotted names) on the bases
  // parameter of the metaclass method being visited: "bases==A,B.C", decided
  // when the simulator runs the method for a class statement
  // (`if bases == (BaseModelForm,): return new_class` in Django's
  // ModelFormMetaclass), unknown anywhere else.
  std::string bases_test(TSNode cond) {
    if (bases_function_ < 0 || ts_node_is_null(cond) || scopes_.empty() ||
        scopes_.back().kind != ScopeKind::Function || scopes_.back().function_index != bases_function_)
      return "";
    const std::string t = compact_text(cond);
    std::string_view rest = t;
    if (!rest.starts_with(bases_param_)) return "";
    rest.remove_prefix(bases_param_.size());
    std::string_view op = rest.substr(0, 2);
    if (op != "==" && op != "!=") return "";
    rest.remove_prefix(2);
    if (rest.size() < 3 || rest.front() != '(' || rest.back() != ')') return "";
    rest = rest.substr(1, rest.size() - 2);
    if (!rest.ends_with(",") && rest.find(',') == std::string_view::npos) return "";  // (A) is not a tuple
    if (rest.ends_with(",")) rest.remove_suffix(1);
    std::string names;
    for (std::size_t i = 0; i <= rest.size();) {
      std::size_t comma = rest.find(',', i);
      if (comma == std::string_view::npos) comma = rest.size();
      std::string_view name = rest.substr(i, comma - i);
      if (!plain_dotted(name)) return "";
      names += (names.empty() ? "" : ",") + std::string(name);
      i = comma + 1;
    }
    return "bases" + std::string(op) + names;
  }

  // A test the simulator decides for its target interpreter, as a guard
  // expression; "" for anything else. `sys.platform == "win32"`,
  // `sys.platform.startswith("linux")`, `os.name != "nt"`,
  // `sys.version_info >= (3, 8)`, `sys.version_info[:2] < (3, 10)`,
  // `__debug__`, and `not`/`and`/`or` of those.
  std::string static_test(TSNode cond, int depth = 0) {
    if (ts_node_is_null(cond) || depth > 8) return "";
    switch (kind(cond)) {
      case kParenthesizedExpression:
        return ts_node_named_child_count(cond) == 1 ? static_test(ts_node_named_child(cond, 0), depth + 1) : "";
      case kNotOperator: {
        std::string a = static_test(field(cond, g_.argument), depth + 1);
        return a.empty() ? "" : "!(" + a + ")";
      }
      case kIdentifier: return view(cond) == "__debug__" ? "__debug__" : "";
      default: break;
    }
    const std::string_view type = ts_node_type(cond);
    if (type == "boolean_operator") {
      std::string l = static_test(field(cond, g_.left), depth + 1);
      std::string r = static_test(field(cond, g_.right), depth + 1);
      if (l.empty() || r.empty()) return "";
      std::string op = text(field(cond, g_.operator_));
      return "(" + l + (op == "and" ? "&&" : "||") + r + ")";
    }
    // The rest is read from the text.
    const std::string t = compact_text(cond);
    if (t.size() > 80) return "";
    auto quoted = [](std::string_view v) -> std::optional<std::string> {
      if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::nullopt;
      v = v.substr(1, v.size() - 2);
      if (v.find_first_of("\"&|!()") != std::string_view::npos) return std::nullopt;
      return std::string(v);
    };
    for (std::string_view subject : {"sys.platform", "os.name"}) {
      if (!t.starts_with(subject)) continue;
      std::string_view rest = std::string_view(t).substr(subject.size());
      for (std::string_view op : {"==", "!="}) {
        if (!rest.starts_with(op)) continue;
        if (auto v = quoted(rest.substr(2))) return std::string(subject) + std::string(op) + *v;
      }
      if (subject == "sys.platform" && rest.starts_with(".startswith(") && rest.ends_with(")")) {
        if (auto v = quoted(rest.substr(12, rest.size() - 13))) return "sys.platform^=" + *v;
      }
      return "";
    }
    for (std::string_view subject : {"sys.version_info[:2]", "sys.version_info"}) {
      if (!t.starts_with(subject)) continue;
      std::string_view rest = std::string_view(t).substr(subject.size());
      for (std::string_view op : {">=", "<=", "==", "!=", ">", "<"}) {
        if (!rest.starts_with(op)) continue;
        std::string_view tuple = rest.substr(op.size());
        if (tuple.size() < 3 || tuple.front() != '(' || tuple.back() != ')') return "";
        tuple = tuple.substr(1, tuple.size() - 2);
        if (tuple.ends_with(",")) tuple.remove_suffix(1);
        if (tuple.empty() || tuple.find_first_not_of("0123456789,") != std::string_view::npos) return "";
        // (3,) and (3, 8) only: version_info's later fields compare as well as the
        // model can follow for a target given as major.minor.
        if (std::count(tuple.begin(), tuple.end(), ',') > 1) return "";
        return std::string(subject) + std::string(op) + std::string(tuple);
      }
      return "";
    }
    return "";
  }

  void visit_if(TSNode n, const Ctx& ctx, int depth) {
    TSNode cond = field(n, g_.condition);
    int tc = type_checking_test(cond);
    if (tc == 0) truth(ctx, cond, ts::line(n));
    visit(cond, ctx, depth + 1);
    Ctx then_ctx = ctx, else_ctx = ctx;
    // A chain of tests the simulator decides: the branches carry guards
    // instead of being "conditional" (module-level imports under them stay
    // ConditionalIf for the planner: which branch runs depends on the machine).
    std::string chain_not;  // !(t1)&&!(t2)... of the tests so far
    std::string test = tc == 0 ? decided_test(cond) : "";
    const ts::ChildList branches = named(n);
    const bool static_chain = !test.empty() && std::all_of(branches.begin(), branches.end(), [&](TSNode c) {
      return kind(c) != kElifClause || !decided_test(field(c, g_.condition)).empty();
    });
    if (static_chain) {
      then_ctx.guard = guard_and(ctx.guard, test);
      chain_not = "!(" + test + ")";
      else_ctx.guard = guard_and(ctx.guard, chain_not);
    }
    if (tc == 1 && scopes_.size() == 1 && !ctx.deferred && !ctx.class_body && !ctx.conditional &&
        !ctx.in_try && !ctx.type_checking && !ctx.tc_else) {
      TSNode body = field(n, g_.consequence);
      TypeCheckingBlock b;
      b.line = ts::line(n);
      b.test = text(cond);
      b.begin = ts_node_start_byte(n);
      b.body_begin = ts_node_is_null(body) ? b.begin : ts_node_start_byte(body);
      b.body_end = ts_node_is_null(body) ? b.begin : ts_node_end_byte(body);
      out_.type_checking_blocks.push_back(std::move(b));
    }
    if (tc == 1) {
      then_ctx.type_checking = true;
      else_ctx.tc_else = true;
    } else if (tc == -1) {
      then_ctx.tc_else = true;
      else_ctx.type_checking = true;
    } else {
      // Module level: ConditionalIf for the planner either way. In a function
      // body a decided test does not make its branches conditional.
      if (!static_chain || !ctx.deferred) then_ctx.conditional = else_ctx.conditional = true;
      if (!static_chain) then_ctx.if_branch = else_ctx.if_branch = true;
    }
    if (int mg = at_module_scope() && !ctx.deferred && !ctx.class_body ? main_test(cond) : 0) {
      Ctx& script = mg == 1 ? then_ctx : else_ctx;
      script.main_guard = true;
      script.where = "__main__ block";
    }
    for (TSNode c : named(n)) {
      if (ts_node_eq(c, cond)) continue;
      switch (kind(c)) {
        case kBlock: visit_block(c, then_ctx, depth + 1); break;
        case kElifClause: {
          // An elif of a TYPE_CHECKING test runs when TYPE_CHECKING is false: its
          // condition and body are in the else context.
          Ctx e = else_ctx;
          if (tc == 0 && (!static_chain || !ctx.deferred)) e.conditional = true;
          if (tc == 0 && !static_chain) e.if_branch = true;
          TSNode econd = field(c, g_.condition);
          visit(econd, e, depth + 1);
          int etc = type_checking_test(econd);
          Ctx body_ctx = e;
          if (etc == 1) body_ctx.type_checking = true;
          if (static_chain) {
            const std::string et = decided_test(econd);
            body_ctx.guard = guard_and(ctx.guard, chain_not + "&&" + et);
            chain_not += "&&!(" + et + ")";
            else_ctx.guard = guard_and(ctx.guard, chain_not);
          }
          visit_block(field(c, g_.consequence), body_ctx, depth + 1);
          break;
        }
        case kElseClause: visit_block(field(c, g_.body), else_ctx, depth + 1); break;
        default: visit(c, then_ctx, depth + 1);
      }
    }
  }

  void visit_try(TSNode n, const Ctx& ctx, int depth) {
    Ctx t = ctx;
    t.in_try = true;
    t.lazy_in_try = true;
    auto kids = named(n);
    bool catches_import = false, catches_attribute = false;
    for (TSNode c : kids) {
      Kind k = kind(c);
      if (k != kExceptClause && k != kExceptGroupClause) continue;
      if (catches_import_error(c)) {
        t.guards_import_error = true;
        catches_import = true;
      }
      catches_attribute = catches_attribute || catches(c, {"AttributeError", "Exception", "BaseException"});
    }
    // Only the body's exceptions reach this try's handlers; a failure there
    // resumes after the handler, past the body's last line.
    Ctx body = t;
    if (catches_import || catches_attribute) {
      body.catches = (catches_import ? Event::kCatchesImportError : 0) |
                     (catches_attribute ? Event::kCatchesAttributeError : 0);
      for (TSNode c : kids) {
        if (!is(c, kBlock)) continue;
        const TSPoint end = ts_node_end_point(c);
        body.try_end = static_cast<int>(end.column == 0 ? end.row : end.row + 1);
      }
    }
    // Inside a function, the body runs until something raises; a handler runs
    // only then, and `else` only when nothing did.
    Ctx other = t;
    if (ctx.deferred) other.conditional = true;
    for (TSNode c : kids) {
      Kind k = kind(c);
      if (k == kBlock) {
        visit_block(c, body, depth + 1);
      } else if (k == kExceptClause || k == kExceptGroupClause) {
        for (TSNode e : named(c)) {
          if (is(e, kBlock)) visit_block(e, other, depth + 1);
          else visit(e, ctx, depth + 1);
        }
      } else {
        visit(c, kind(c) == kFinallyClause ? t : other, depth + 1);  // else / finally
      }
    }
  }

  // The text of a plain string literal ("" for anything else: f-strings,
  // concatenations, escapes the model does not decode).
  std::string string_literal(TSNode a) {
    if (!is(a, kString) || ts_node_named_child_count(a) > 3) return "";
    std::string out;
    for (TSNode c : named(a)) {
      if (is(c, kStringContent)) out = text(c);
      else if (is(c, kInterpolation)) return "";
    }
    return out;
  }

  // While a `for NAME in (<string literals>):` is visited: NAME's values.
  struct LoopLiterals {
    Collector& c;
    bool pushed = false;
    LoopLiterals(Collector& collector, TSNode left, TSNode right) : c(collector) {
      if (!c.is(left, kIdentifier) || !(c.is(right, kTuple) || c.is(right, kList))) return;
      std::vector<std::string> values;
      for (TSNode e : c.named(right)) {
        std::string v = c.string_literal(e);
        if (v.empty()) return;
        values.push_back(std::move(v));
      }
      if (values.empty()) return;
      c.loop_literals_.emplace_back(c.view(left), std::move(values));
      pushed = true;
    }
    ~LoopLiterals() {
      if (pushed) c.loop_literals_.pop_back();
    }
    LoopLiterals(const LoopLiterals&) = delete;
    LoopLiterals& operator=(const LoopLiterals&) = delete;
  };
  std::vector<std::pair<std::string_view, std::vector<std::string>>> loop_literals_;
  // The Protocol events each body of sinks_ has (one per name and body).
  // (A set: generated module code names thousands of distinct operands.)
  std::vector<std::unordered_set<std::string>> protocols_;

  void visit_call(TSNode n, const Ctx& ctx, int depth) {
    TSNode fn = field(n, g_.function);
    auto ft = view(fn);
    if (ft == "__import__" || ft == "importlib.import_module" || ft == "import_module" ||
        ft == "importlib.__import__") {
      DynamicImport d;
      d.line = ts::line(n);
      d.call = std::string(ft);
      d.at_import_time = !ctx.deferred && !ctx.type_checking;
      TSNode args = field(n, g_.arguments);
      if (is(args, kArgumentList) && ts_node_named_child_count(args) > 0) {
        TSNode a = ts_node_named_child(args, 0);
        d.argument = string_literal(a);
        if (is(a, kIdentifier)) {
          // One dynamic import per value of an enclosing loop over string literals.
          for (auto it = loop_literals_.rbegin(); it != loop_literals_.rend(); ++it) {
            if (it->first != view(a)) continue;
            for (const std::string& v : it->second) {
              DynamicImport each = d;
              each.argument = v;
              out_.dynamic_imports.push_back(std::move(each));
            }
            d.line = 0;
            break;
          }
        }
      }
      if (d.line) out_.dynamic_imports.push_back(std::move(d));
    }
    if (ends_with_name(ft, "get_type_hints") || ends_with_name(ft, "get_annotations")) mark_reads_annotations();
    std::string callee;
    if (ts_node_has_error(n)) {
      visit_children(n, ctx, depth);
      callee = callee_text(fn);
    } else {
      // A call's named children are its function and its arguments (and maybe
      // comments, which visit skips): no need to enumerate them.
      chain_top_ = nullptr;
      not_read_top_ = fn.id;
      visit(fn, ctx, depth + 1);
      callee = callee_of_visited(fn);
      visit(field(n, g_.arguments), ctx, depth + 1);
    }
    record_builtin(n, ft, ctx);
    // `super().m(...)`: the next class's `m` in the MRO ("super.m").
    if (callee.empty() && is(fn, kAttribute)) {
      TSNode obj = field(fn, g_.object);
      if (is(obj, kCall) && view(field(obj, g_.function)) == "super")
        callee = "super." + text(field(fn, g_.attribute));
    }
    // `typing.cast("Name", x)`: the string is a type expression, never evaluated;
    // the names in it are annotation uses (a TYPE_CHECKING import serves them).
    if (ft == "cast" || ft == "typing.cast" || ft == "typing_extensions.cast" || ft == "t.cast") {
      TSNode args = field(n, g_.arguments);
      if (is(args, kArgumentList) && ts_node_named_child_count(args) > 0) {
        TSNode first = ts_node_named_child(args, 0);
        if (is(first, kString)) record_string_annotation(first, ctx);
      }
    }
    // `f(x)(...)`: calling what f returned ("f()", factory_product).
    if (callee.empty() && is(fn, kCall)) called_result(fn, callee);
    // `Cls(...).m(...)`: method m of what the call made or returned ("Cls().m").
    bool on_result = false;
    if (callee.empty() && is(fn, kAttribute)) {
      made_method(fn, callee);
      on_result = !callee.empty();
    }
    if (callee.empty()) return;
    const std::size_t before = current_events().size();
    emit_call(ctx, std::move(callee), ts::line(n));
    if (on_result)
      for (std::size_t i = before; i < current_events().size(); ++i) current_events()[i].on_result = true;
    record_arguments(field(n, g_.arguments), before);
  }

  // What `return value` gives back (FunctionInfo::returns).
  [[gnu::noinline]] void record_return(TSNode value) {
    std::string t = callee_text(value);
    // `return Cls(...)`: an instance of Cls ("Cls()"; a factory of lazy
    // proxies, a decorator factory returning an instance).
    if (t.empty() && is(value, kCall))
      if (std::string f = callee_text(field(value, g_.function)); !f.empty()) t = local_callee(std::move(f)) + "()";
    // `return factory(x)()`: what the product of factory returns ("factory()()",
    // Django's decorator_from_middleware).
    if (t.empty() && is(value, kCall) && is(field(value, g_.function), kCall)) {
      t = made_by(field(value, g_.function));
      if (!t.empty()) t += "()";
    }
    if (t.empty()) return;
    auto& returns = scratch_.functions[scopes_.back().function_index].returns;
    // `return property(accessor)` (a decorator making properties, SymPy's
    // memoize_property): the getter is returned too, as a wrapper would be.
    if (makes_property(t)) {
      TSNode args = field(value, g_.arguments);
      if (is(args, kArgumentList) && ts_node_named_child_count(args) > 0) {
        std::string getter = callee_text(ts_node_named_child(args, 0));
        auto local = getter.empty() ? std::vector<std::string>{} : local_callees(getter);
        returns.insert(returns.end(), local.begin(), local.end());
      }
    }
    auto local = local_callees(t);
    if (local.empty()) returns.push_back(std::move(t));
    else returns.insert(returns.end(), local.begin(), local.end());
  }

  // Out of line, as record_arguments and record_return: visit() recurses once
  // per nesting level, and what is inlined into it grows every frame (the
  // deep-nesting test overflowed the stack under ASan).
  [[gnu::noinline]] void called_result(TSNode call, std::string& out) const {
    if (std::string inner = callee_text(field(call, g_.function)); !inner.empty()) out = std::move(inner) + "()";
  }

  // What call `call` makes, as the resolver reads it ("Cls()", "f()"), local
  // aliases resolved; "" when its callee is not a dotted name.
  std::string made_by(TSNode call) const {
    std::string callee = callee_text(field(call, g_.function));
    return callee.empty() ? callee : local_callee(std::move(callee)) + "()";
  }

  [[gnu::noinline]] void made_method(TSNode attribute, std::string& out) const {
    TSNode obj = field(attribute, g_.object);
    if (!is(obj, kCall) || view(field(obj, g_.function)) == "super") return;
    std::string made = made_by(obj);
    if (!made.empty()) out = std::move(made) + "." + text(field(attribute, g_.attribute));
  }

  // CallArgument: the dotted names among a call's arguments, for each Call
  // event emitted from `first` on.
  [[gnu::noinline]] void record_arguments(TSNode args, std::size_t first) {
    const std::size_t last = current_events().size();
    if (first >= last || !is(args, kArgumentList)) return;
    int position = 0;
    for (TSNode a : named(args)) {
      CallArgument arg;
      TSNode value = a;
      if (is(a, kKeywordArgument)) {
        arg.keyword = text(field(a, g_.name));
        value = field(a, g_.value);
      } else if (std::string_view t = ts_node_type(a); t == "list_splat" || t == "dictionary_splat") {
        position = -1;  // positions after *args are not known
        continue;
      } else if (position >= 0) {
        arg.position = position++;
      } else {
        continue;
      }
      std::string dotted = callee_text(value);
      if (dotted.empty()) continue;
      if (scopes_.size() > 1) {
        // A local of the calling function: only a local alias says what it is.
        auto local = local_callees(dotted);
        if (!local.empty()) {
          dotted = std::move(local.front());
          // A loop over a parameter (`for dec in decorators: f(dec)`).
          if (dotted.find('.') == std::string::npos && parameter_in_scope(dotted)) dotted.insert(0, 1, '$');
        } else if (std::string_view head = std::string_view(dotted).substr(0, dotted.find('.'));
                   !resolves_to_module(head) && !bound_by_local_import(head)) {  // the resolver reads those
          // A parameter of the calling function or of one around it (a
          // closure), handed on: "$name" (the resolver binds it where the
          // function that has it is called).
          if (!parameter_in_scope(head)) continue;
          dotted.insert(0, 1, '$');
        }
      }
      arg.value = std::move(dotted);
      arg.function = sinks_.back();
      for (std::size_t e = first; e < last; ++e) {
        arg.event = static_cast<std::uint32_t>(e);
        out_.call_arguments.push_back(arg);
      }
    }
  }

  // `name` or `anything.name`.
  static bool ends_with_name(std::string_view dotted, std::string_view name) {
    return dotted == name || (dotted.size() > name.size() && dotted.substr(dotted.size() - name.size()) == name &&
                              dotted[dotted.size() - name.size() - 1] == '.');
  }

  // The innermost function being visited reads annotations at run time.
  void mark_reads_annotations() {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->function_index >= 0) {
        scratch_.functions[it->function_index].reads_annotations = true;
        return;
      }
    }
  }

  void visit_assignment(TSNode n, const Ctx& ctx, int depth, bool augmented) {
    TSNode left = field(n, g_.left);
    TSNode right = field(n, g_.right);
    TSNode ann = field(n, g_.type);
    if (augmented) record_augmented(n, ctx);
    if (augmented) visit(left, ctx, depth + 1);  // x += 1 reads x
    else visit_target(left, ctx, depth + 1);
    if (!ts_node_is_null(ann)) {
      bool in_function_body = ctx.deferred && scopes_.back().kind == ScopeKind::Function;
      visit_annotation(ann, ctx, depth, in_function_body);
    }
    if (!ts_node_is_null(right)) visit(right, ctx, depth + 1);
    if (!augmented) record_alias(left, right, ctx);
    if (!augmented) record_stored_parameter(left, right);
    define(left, Definition::Kind::Assignment, ctx);
    if (at_module_scope() && is(left, kIdentifier) && view(left) == "__all__")
      read_dunder_all(right, augmented);
    if (at_module_scope() && !augmented && is(left, kIdentifier) && view(left) == "__lazy_modules__")
      read_lazy_modules(right);
  }

  // `__lazy_modules__ = [...]` / `(...)` / `{...}` of string literals (PEP 810).
  void read_lazy_modules(TSNode value) {
    if (!is(value, kList) && !is(value, kTuple) && !is(value, kSet)) return;
    out_.lazy_modules.emplace();
    for (TSNode s : named(value)) {
      std::string m = string_literal(s);
      if (!m.empty()) out_.lazy_modules->push_back(std::move(m));
    }
  }

  void read_dunder_all(TSNode value, bool extend) {
    if (ts_node_is_null(value)) return;
    if (!is(value, kList) && !is(value, kTuple)) return;
    if (!out_.dunder_all || !extend) out_.dunder_all.emplace();
    for (TSNode s : named(value)) {
      if (!is(s, kString)) continue;
      for (TSNode c : named(s)) {
        if (is(c, kStringContent)) out_.dunder_all->push_back(text(c));
      }
    }
  }

  // Out of line, as record_arguments: visit() recurses once per nesting
  // level, and what is inlined into it grows every frame (the deep-nesting
  // test overflowed the stack under ASan when the loop alias was added here).
  [[gnu::noinline]] void visit_for(TSNode n, const Ctx& ctx, int depth) {
    Ctx c = ctx;
    if (!ctx.deferred && !ctx.class_body) c.conditional = true;
    TSNode left = field(n, g_.left);
    iterate(ctx, field(n, g_.right), ts::line(n));
    // `for dep in ("numpy", "pytz"): __import__(dep)`: the loop variable's values.
    LoopLiterals literals(*this, left, field(n, g_.right));
    visit_target(left, ctx, depth + 1);
    define(left, Definition::Kind::Assignment, ctx);
    loop_alias(left, field(n, g_.right));
    for (TSNode kid : named(n)) {
      if (ts_node_eq(kid, left)) continue;
      Kind kk = kind(kid);
      visit(kid, kk == kBlock || kk == kElseClause ? c : ctx, depth + 1);
    }
  }

  void visit(TSNode n, const Ctx& ctx, int depth) {
    if (ts_node_is_null(n) || too_deep(n, depth)) return;
    const Kind k = kind(n);
    switch (k) {
      case kComment: return;
      case kIdentifier: {
        attr_chain_.clear();
        record_use(n, ctx, attr_chain_);
        return;
      }
      case kAttribute: visit_attribute(n, ctx, depth); return;
      case kKeywordArgument: visit(field(n, g_.value), ctx, depth + 1); return;
      case kString:
        if (ctx.annotation) record_string_annotation(n, ctx);
        // f-string interpolations (a string at the depth limit is visited for the report)
        else if (may_interpolate(n) || depth + 1 >= kMaxDepth) visit_children(n, ctx, depth);
        return;
      case kImportStatement:
      case kImportFromStatement: record_import(n, ctx); return;
      case kFutureImportStatement:
        if (const LazyKeyword* lk = lazy_.empty() ? nullptr : find_lazy_keyword(lazy_, ts_node_start_byte(n)))
          misplaced_lazy(*lk, n, "lazy from __future__ import is not allowed");
        for (TSNode c : named(n)) {
          TSNode nm = is(c, kAliasedImport) ? field(c, g_.name) : c;
          if (view(nm) == "annotations") out_.future_annotations = true;
        }
        return;
      case kDecoratedDefinition: {
        Ctx d = ctx;
        d.where = "decorator";
        std::vector<std::string> decorators;
        for (TSNode c : named(n)) {
          if (!is(c, kDecorator)) continue;
          auto dk = named(c);
          for (TSNode e : dk) visit(e, d, depth + 2);
          // `@name` / `@mod.name` call that function with the definition;
          // `@factory(args)` calls what factory returned ("factory()").
          std::string deco;
          if (dk.size() == 1 && is(dk[0], kCall)) {
            std::string f = callee_text(field(dk[0], g_.function));
            if (!f.empty()) deco = local_callee(std::move(f)) + "()";
          } else if (dk.size() == 1) {
            deco = local_callee(callee_text(dk[0]));
          }
          decorators.push_back(std::move(deco));
        }
        TSNode def = field(n, g_.definition);
        if (is(def, kFunctionDefinition))
          visit_function(def, ctx, depth + 1, ts_node_start_byte(n), decorators);
        else if (is(def, kClassDefinition))
          visit_class(def, ctx, depth + 1, decorators);
        return;
      }
      case kFunctionDefinition: visit_function(n, ctx, depth, ts_node_start_byte(n)); return;
      case kClassDefinition: visit_class(n, ctx, depth); return;
      case kLambda: visit_lambda(n, ctx, depth); return;
      case kListComprehension:
      case kSetComprehension:
      case kDictionaryComprehension:
      case kGeneratorExpression: {
        Ctx c = ctx;
        if (!ctx.deferred && scopes_.back().kind == ScopeKind::Module) c.where = "comprehension";
        visit_comprehension(n, c, depth);
        return;
      }
      case kIfStatement: visit_if(n, ctx, depth); return;
      case kTryStatement: visit_try(n, ctx, depth); return;
      case kForStatement: visit_for(n, ctx, depth); return;
      case kWhileStatement:
      case kWithStatement: {
        if (k == kWhileStatement) truth(ctx, field(n, g_.condition), ts::line(n));
        Ctx c = ctx;
        if (!ctx.deferred && !ctx.class_body) c.conditional = true;
        visit_children(n, c, depth);
        return;
      }
      case kAsPatternTarget:
        visit_target(n, ctx, depth + 1);
        define(n, Definition::Kind::Assignment, ctx);
        return;
      case kNamedExpression:
        visit(field(n, g_.value), ctx, depth + 1);
        define(field(n, g_.name), Definition::Kind::Assignment, ctx);
        return;
      case kAssignment: visit_assignment(n, ctx, depth, false); return;
      case kAugmentedAssignment: visit_assignment(n, ctx, depth, true); return;
      case kGlobalStatement:
      case kNonlocalStatement: return;
      case kCall: visit_call(n, ctx, depth); return;
      case kBinaryOperator: case kComparisonOperator: case kUnaryOperator: case kNotOperator:
      case kBooleanOperator: case kConditionalExpression: case kAssertStatement: case kWithItem:
      case kDictionary: case kSet: case kInterpolation:
        record_operator(n, ctx);
        break;
      case kSubscript:
        record_operator(n, ctx);
        // `Cls[...]` at import time runs Cls.__class_getitem__ (the resolver
        // finds nothing for a name that is not a first-party class).
        if (!ctx.deferred && !(ctx.annotation && (out_.future_annotations || ctx.local_var_annotation))) {
          std::string t = callee_text(field(n, g_.value));
          if (!t.empty()) emit_call(ctx, t + ".__class_getitem__", ts::line(n));
        }
        break;
      case kReturnStatement:
        if (scopes_.back().kind == ScopeKind::Function && scopes_.back().function_index >= 0 &&
            ts_node_named_child_count(n) == 1)
          record_return(ts_node_named_child(n, 0));
        break;
      case kExpressionStatement:
        if (at_module_scope() && ts_node_named_child_count(n) == 1) {
          // __all__.extend([...]) / __all__ += [...] handled via assignment; extend here.
          TSNode c = ts_node_named_child(n, 0);
          if (is(c, kCall)) {
            TSNode fn = field(c, g_.function);
            if (view(fn) == "__all__.extend") {
              TSNode args = field(c, g_.arguments);
              if (ts_node_named_child_count(args) == 1) read_dunder_all(ts_node_named_child(args, 0), true);
            }
          }
        }
        break;
      default: break;
    }
    visit_children(n, ctx, depth);
  }

  // Facts of every file stay in memory until the end of the run: no spare capacity.
  template <typename T>
  static void fit(std::vector<T>& v) {
    if (v.capacity() != v.size()) v.shrink_to_fit();
  }

  // Moves the scratch vector's elements into `out` (empty), allocated once at their size.
  template <typename T>
  static void take(std::vector<T>& from, std::vector<T>& out) {
    out.reserve(from.size());
    std::move(from.begin(), from.end(), std::back_inserter(out));
    from.clear();
  }

  void finish() {
    pop_sink(&out_.events);  // the module body
    std::vector<char>& kept = scratch_.kept;
    kept.assign(candidates_.size(), 0);
    std::size_t n = 0;
    for (std::size_t i = 0; i < candidates_.size(); ++i)
      n += kept[i] = module_import_names_.count(std::string(candidates_[i].name())) != 0;
    out_.uses.reserve(out_.uses.size() + n);
    for (std::size_t i = 0; i < candidates_.size(); ++i)
      if (kept[i]) out_.uses.push_back(std::move(candidates_[i]));
    auto& args = out_.call_arguments;
    std::stable_sort(args.begin(), args.end(), [](const CallArgument& x, const CallArgument& y) {
      return std::tie(x.function, x.event) < std::tie(y.function, y.event);
    });
    // Use events are kept for imported names (and `self.attr` reads) only; the call arguments of the
    // body follow their events' new indexes (a Call event is never dropped).
    std::vector<std::uint32_t> dropped_before;
    auto keep = [&](std::vector<Event>& events, int function) {
      auto drop = [&](const Event& e) {
        if (e.kind != Event::Kind::Use || e.local) return false;
        std::string_view name = e.name;
        if (function >= 0 && name.starts_with("self.")) return false;  // record_self_read's
        return !module_import_names_.count(std::string(name.substr(0, name.find('.'))));
      };
      if (std::none_of(events.begin(), events.end(), drop)) return;
      dropped_before.assign(events.size(), 0);
      for (std::size_t i = 1; i < events.size(); ++i) dropped_before[i] = dropped_before[i - 1] + drop(events[i - 1]);
      auto lo = std::lower_bound(args.begin(), args.end(), function,
                                 [](const CallArgument& a, int f) { return a.function < f; });
      for (; lo != args.end() && lo->function == function; ++lo) lo->event -= dropped_before[lo->event];
      std::erase_if(events, drop);
      fit(events);
    };
    keep(out_.events, -1);
    for (std::size_t i = 0; i < scratch_.functions.size(); ++i) keep(scratch_.functions[i].events, static_cast<int>(i));
    take(scratch_.functions, out_.functions);
    take(scratch_.imports, out_.imports);
    take(scratch_.definitions, out_.definitions);
    take(scratch_.classes, out_.classes);
    fit(out_.dynamic_imports);
    fit(out_.call_arguments);
    fit(out_.stored_parameters);
  }
};

void collect_syntax_problems(TSNode root, std::string_view src, ModuleFacts& out) {
  if (!ts_node_has_error(root)) return;
  constexpr std::size_t kMaxReported = 20;
  const Grammar& g = grammar();
  ts::ChildPool pool;
  std::vector<TSNode> stack{root};
  std::vector<SyntaxProblem> found;
  while (!stack.empty() && found.size() < kMaxReported) {
    TSNode n = stack.back();
    stack.pop_back();
    if (ts_node_is_missing(n)) {
      found.push_back({ts::line(n), static_cast<int>(ts_node_start_point(n).column) + 1,
                       "syntax error: missing " + std::string(ts::type(n))});
      continue;
    }
    if (g.kind(n) == kError) {
      std::string_view t = ts::text(n, src);
      auto nl = t.find('\n');
      if (nl != std::string_view::npos) t = t.substr(0, nl);
      if (t.size() > 40) t = t.substr(0, 40);
      found.push_back({ts::line(n), static_cast<int>(ts_node_start_point(n).column) + 1,
                       "syntax error near '" + std::string(t) + "'"});
      continue;
    }
    if (!ts_node_has_error(n)) continue;
    auto kids = pool.all(n);
    for (std::size_t i = kids.size(); i-- > 0;) stack.push_back(kids[i]);
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
  // Child lists, a tree cursor and the memo, reused from file to file.
  thread_local ts::ChildPool pool;
  ModuleFacts facts;
  uint32_t newlines = 0;
  for (const char *p = source.data(), *end = p + source.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))); ++p)
    ++newlines;
  facts.lines = newlines + (!source.empty() && source.back() != '\n' ? 1 : 0);
  BlankedParse parsed = parse_blanked(parser, source);
  TSNode root = ts_tree_root_node(parsed.tree.get());
  collect_syntax_problems(root, source, facts);
  const std::size_t problems = facts.syntax_problems.size();
  thread_local Scratch scratch;
  if (!Collector(source, facts, pool, scratch, true, parsed.keywords).run(root)) {
    // The pre-pass missed a module-level import (odd syntax): collect again
    // without the filter.
    ModuleFacts again;
    again.lines = facts.lines;
    again.syntax_problems.assign(facts.syntax_problems.begin(),
                                 facts.syntax_problems.begin() + static_cast<std::ptrdiff_t>(problems));
    facts = std::move(again);
    Collector(source, facts, pool, scratch, false, parsed.keywords).run(root);
  }
  scratch.trim();
  std::stable_sort(facts.syntax_problems.begin(), facts.syntax_problems.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  return facts;
}

}  // namespace cyclefix
