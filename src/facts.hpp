// Facts about one Python source file, collected in one pass over its syntax
// tree (facts_collector.cpp). Plain data: no tree-sitter types, no file system.
// Every later stage (resolution, graph, simulator, planner, rewriters) reads
// these instead of the tree.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct TSParser;  // tree-sitter's parser, opaque here

namespace cyclefix {

// Where an import statement sits, which decides whether it runs at import time.
enum class ImportContext {
  ModuleLevel,       // plain module-level statement
  TypeChecking,      // body of `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:`: never runs
  TypeCheckingElse,  // `else:` (or `elif`) of such an `if`: runs
  TryExcept,         // inside a module-level `try:` (any handler; see `guards_import_error`)
  ConditionalIf,     // inside another module-level `if`/`while`/`with`/`for`
  ClassBody,         // directly in a class body (runs when the class is defined)
  FunctionBody,      // inside a function or lambda: runs only when called
  MainGuard,         // under a module-level `if __name__ == "__main__":`: runs only as a script
};
std::string_view to_string(ImportContext c);

// One name of an import statement. For `import a.b.c as d`: name "a.b.c", asname "d".
// For `from m import x as y`: name "x", asname "y".
struct ImportAlias {
  std::string name;
  std::string asname;  // empty when there is no `as`
  // The local name the alias binds: asname, else (for `import a.b`) "a", else name.
  std::string bound_name(bool is_from) const;
  // The same as a view into this alias's strings.
  std::string_view bound_view(bool is_from) const {
    if (!asname.empty()) return asname;
    std::string_view n = name;
    return is_from ? n : n.substr(0, n.find('.'));
  }
};

struct ImportStatement {
  // (Strings and vectors first, then the numbers, then the flags: 160 bytes
  // instead of 184 in source order; a large tree has 0.7 M statements.)
  std::string module;           // `from` part without the leading dots ("" for `from . import x`)
  std::vector<ImportAlias> names;
  std::string scope;            // qualified name of the enclosing function or class ("" at module level)
  std::string text;             // source text of the statement (with its `lazy ` keyword, if any)
  int level = 0;                // number of leading dots of a relative import
  ImportContext context = ImportContext::ModuleLevel;
  int line = 0;                 // 1-based line of the statement
  uint32_t stmt_begin = 0, stmt_end = 0;  // bytes of the statement itself
  // Bytes of the statement with its own comments: leading comment lines directly above it
  // and a trailing comment on its last line, through the end of that line (newline included)
  // when nothing else shares the line.
  uint32_t span_begin = 0, span_end = 0;
  bool is_from = false;         // `from X import ...` vs `import X`
  bool star = false;            // `from X import *`
  bool at_import_time = true;   // runs while the module body runs (not TYPE_CHECKING, not in a function)
  bool guards_import_error = false;  // inside try whose handlers catch ImportError/ModuleNotFoundError/Exception/bare
  bool shares_line = false;     // another statement shares its line (`;`)
  // PEP 810 (Python 3.15): the statement binds lazy proxies and imports nothing
  // until a bound name is first used. Written `lazy import ...`/`lazy from ...`
  // (has_lazy_keyword; stmt_begin is then the `lazy` keyword), or an absolute
  // import of a module named in a module-level `__lazy_modules__` list assigned
  // above it. Only where CPython allows it: module level outside any try, not
  // star, not `__future__`; a misplaced `lazy` is a SyntaxProblem and the
  // statement is not lazy.
  bool is_lazy = false;
  bool has_lazy_keyword = false;

  std::vector<std::string> bound_names() const;
};
static_assert(sizeof(ImportStatement) <= 160, "ImportStatement grew: 0.7 M of them on a large tree");

// How a use of an imported name is evaluated.
enum class UseKind {
  ImportTime,  // evaluated while the module body runs: module level, class body, decorator,
               // base class, class keyword, default value, module-level comprehension
  Deferred,    // inside a function or lambda body: runs only when called
  Annotation,  // inside an annotation (see NameUse::eager)
};
std::string_view to_string(UseKind k);

// A reference to a name bound by one of the file's import statements, resolved
// through Python's scoping rules (a function that binds the same name locally
// hides it, unless it declares it `global`).
struct NameUse {
  std::string dotted;  // the attribute chain starting at the name, e.g. "a.b.c.f" for `a.b.c.f()`
  // The bound name: the chain's first identifier (not a string of its own: a
  // large tree has millions of uses).
  std::string_view name() const {
    const std::string_view d = dotted;
    return d.substr(0, d.find('.'));
  }
  UseKind kind = UseKind::ImportTime;
  // For Annotation uses: Python evaluates this annotation when its definition runs
  // (no `from __future__ import annotations`, not a string, not a local variable
  // annotation in a function body).
  bool eager = false;
  bool in_string = false;       // inside a string annotation ("Foo")
  const char* where = "";       // short description (a string literal): "base class", "decorator", ...
  // The innermost enclosing function (ModuleFacts::function_name), and the
  // innermost class when the innermost function-or-class scope is a class
  // (ModuleFacts::scope_name): indexes into the facts, -1 for none. (Not
  // their names: a large tree has millions of uses and a file only a few
  // scopes.)
  int function = -1;
  int scope_class = -1;
  int line = 0;
  uint32_t begin = 0, end = 0;  // bytes of the name (or of the whole string for in_string)
  // Annotation uses: bytes of the whole annotation expression the name sits in
  // (what the rewriter quotes when the annotation is evaluated eagerly).
  uint32_t annotation_begin = 0, annotation_end = 0;
};

// A module-level binding, in source order (includes bindings in module-level if/try blocks).
struct Definition {
  enum class Kind { Function, Class, Assignment, Import };
  std::string name;
  Kind kind = Kind::Assignment;
  int line = 0;
  uint32_t begin = 0;
  // End of the module-level statement that binds it (a def or class with its
  // body, an `if` holding the assignment), and the line that end is on: an
  // import moved below it (--allow-late-imports) goes after this.
  uint32_t end = 0;
  int end_line = 0;
};

// `importlib.import_module(...)` or `__import__(...)`: not an edge, but reported.
struct DynamicImport {
  int line = 0;
  std::string call;      // "importlib.import_module" or "__import__"
  std::string argument;  // literal module name when the first argument is a string, else ""
  bool at_import_time = false;  // at module level or in a class body (not inside a function)
};

// A dotted name passed to a call (`f(g)`, `f(x, key=Cls)`): a callee that
// calls its parameter runs what was passed (callbacks, decorators given as
// arguments, classes to instantiate). Names local to the calling function are
// not kept (their values are not known), unless a local alias names the target
// or the name is one of its parameters (handed on).
struct CallArgument {
  int function = -1;        // the body holding the call: -1 the module body
  std::uint32_t event = 0;  // index of the Call event in that body's events
  int position = -1;        // positional index, or -1 for a keyword argument
  std::string keyword;      // the keyword ("" for a positional argument)
  std::string value;        // the dotted name passed; "$p.x" for the caller's own parameter p
};

// `self.attr = p` (or `self.__dict__["attr"] = p`) in a method whose first
// parameter is `self` and another of whose parameters is `p`: what a caller
// passes for p is kept on the instance, and a method of the class calling
// `self.attr()` later runs it (Django's SimpleLazyObject keeps its set-up
// function so).
struct StoredParameter {
  int function = -1;      // the method (ModuleFacts::functions)
  std::string attribute;  // "attr"
  std::string parameter;  // "p"
};

struct SyntaxProblem {
  int line = 0;
  int column = 0;
  std::string message;
};

// One step of a body's execution, in source order: what the import-order
// simulator replays and what import-time reachability follows.
struct Event {
  enum class Kind : std::uint8_t {
    Import,  // runs imports[import] (TYPE_CHECKING imports are not events)
    Bind,    // binds `name` in the module namespace (module body only)
    Use,     // reads `name`, an attribute chain `mod.attr...` starting at an imported name
    Call,    // calls `name`: "f", "Cls", "self.m", "cls.m", "mod.f" (decorators and
             // metaclasses count as calls)
    // Runs a protocol method on an object: an operator, a builtin or a
    // statement does (`a + b` runs `a.__add__` and maybe `b.__radd__`, `len(x)`
    // `x.__len__`, `for v in x` `x.__iter__`, `if x:` `x.__bool__`). `name` is
    // "operand.__dunder__" with the operand a dotted name the module scope
    // binds (or `self`), else "?". Some names stand for the methods CPython
    // pairs with them (CalleeResolver::protocol_companions: `__iter__` for
    // `__next__` too, `__bool__` for `__len__`). Reachability only: the
    // simulator, which must be certain, does not follow them. One event per
    // name and body.
    Protocol,
  };
  // (Fields ordered so that an event takes 56 bytes: a large tree has millions.)
  std::string name;
  int import = -1;
  int line = 0;
  // Inside the body of a `try` whose handlers catch ImportError or
  // AttributeError (innermost such try): the last line of that body, where a
  // caught failure resumes after the handler, and which of the two they catch
  // (kCatchesImportError | kCatchesAttributeError: `except Exception:`, a bare
  // `except:`, tuples). 0 otherwise.
  static constexpr std::uint8_t kCatchesImportError = 1, kCatchesAttributeError = 2;
  int try_end = 0;
  // Under `if` tests the simulator can decide (ModuleFacts::guards): an index
  // into ModuleFacts::guards, or -1.
  int guard = -1;
  Kind kind = Kind::Use;
  std::uint8_t catches = 0;
  bool guarded = false;  // inside a try whose handler catches ImportError
  // Function bodies only: the event sits under an if/for/while/with, or in an
  // except/else clause, inside the function, so it may not run when the
  // function does (a try body runs until something raises).
  bool conditional = false;
  // Use only: the name is bound by an import inside the same function body.
  bool local = false;
  // Call only: a method called on what a call returned (`Cls(...).m()`, "Cls().m").
  bool on_result = false;
  // Use only: inside an annotation evaluated when its definition runs
  // (NameUse::eager); Python 3.14+ evaluates it on first access instead (PEP 649).
  bool annotation = false;
};
static_assert(sizeof(Event) <= 56, "Event grew: millions of them on a large tree");

struct ClassInfo {
  std::string qualified_name;
  // Base-class expressions as written (dotted); a base made by a call is its
  // callee with "()" (`Base.from_queryset()`), and makes bases_complete false.
  std::vector<std::string> bases;
  // Every positional base is a dotted name (none dropped from `bases`: no
  // call, subscript or `*args`), so `bases` is the tuple the metaclass gets.
  bool bases_complete = true;
  int line = 0;
  std::string metaclass;           // `metaclass=M` as written (dotted), "" when none
  // Decorators, outermost first: the dotted callee of `@name`, `name()` for a
  // decorator factory `@name(args)`, "" for anything else.
  std::vector<std::string> decorators;
};

// A `returns` entry (a callee with "()") that is a property object: a
// decorator returning one turns the function it decorates into a property.
inline bool makes_property(std::string_view returned) {
  return returned == "property()" || returned == "cached_property()" || returned == "functools.cached_property()";
}

// A function (or method, or lambda's enclosing definition) and where its body starts.
struct FunctionInfo {
  std::string qualified_name;   // e.g. "Foo.bar", "outer.inner"
  // The def's own name: the last part of the qualified name (not a string of
  // its own: a large tree has 0.3 M functions).
  std::string_view name() const {
    const std::string_view q = qualified_name;
    return q.substr(q.rfind('.') + 1);
  }
  std::string class_name;       // enclosing class for methods ("" otherwise)
  bool is_async = false;
  int line = 0;
  uint32_t begin = 0, end = 0;  // the whole definition (decorators included)
  uint32_t body_begin = 0;      // first byte of the body block
  uint32_t docstring_end = 0;   // end of the docstring statement opening the body (0: none)
  int body_line = 0;
  std::vector<std::string> locals;  // names bound locally (parameters included), sorted
  std::vector<std::string> globals; // names declared `global`
  // Locals bound only by import statements, sorted (few: a large tree has
  // 1.3 M locals and a few thousand of these).
  std::vector<std::string> import_only;
  // Whether `n` is a local bound other than by an import statement (parameters,
  // assignments, loop and `with`/`except` targets, walrus, def/class, del, nonlocal).
  bool bound_otherwise(std::string_view n) const {
    return std::binary_search(locals.begin(), locals.end(), n, std::less<>()) &&
           !std::binary_search(import_only.begin(), import_only.end(), n, std::less<>());
  }
  std::vector<Event> events;        // what the body does when called
  // The positional parameters, in order, as indexes into `locals` (which holds
  // every parameter): 4 bytes each instead of a string.
  std::vector<std::uint32_t> param_locals;
  std::size_t param_count() const { return param_locals.size(); }
  const std::string& param(std::size_t i) const { return locals[param_locals[i]]; }
  bool has_param(std::string_view n) const {
    return std::any_of(param_locals.begin(), param_locals.end(), [&](std::uint32_t l) { return locals[l] == n; });
  }
  std::vector<std::string> decorators;  // as ClassInfo::decorators
  // What `return NAME` statements of the body give back: a nested def or class
  // by its qualified name, else the name as written (a decorator factory
  // returns the decorator that is then applied); `return Cls(...)` gives "Cls()".
  // `return property(getter)` also gives the getter (see makes_property).
  std::vector<std::string> returns;
  // The body reads annotations at run time: calls `get_type_hints` or
  // `get_annotations` (typing, inspect, annotationlib) or reads `__annotations__`.
  bool reads_annotations = false;
};

// A module-level `name = target`, where target is a dotted name, a call
// ("f()": what f returns) or `functools.partial(target, ...)`: calling `name`
// calls `target`. In a class body, `Cls.name = target` (the class's qualified
// name), outside any if/try.
struct Alias {
  std::string name;
  std::string target;
  int line = 0;
};

// A module-level `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`) block.
struct TypeCheckingBlock {
  int line = 0;
  std::string test;             // the condition as written: "TYPE_CHECKING", "typing.TYPE_CHECKING"
  uint32_t begin = 0;           // the `if`
  uint32_t body_begin = 0;      // first statement of its body
  uint32_t body_end = 0;        // end of its body's last statement
};

struct ModuleFacts {
  std::vector<ImportStatement> imports;  // every import statement, in source order
  std::vector<NameUse> uses;             // uses of names bound by imports, in source order
  std::vector<Definition> definitions;   // module-level bindings, in source order
  std::vector<FunctionInfo> functions;   // every def, in source order
  std::vector<ClassInfo> classes;        // every class, in source order
  std::vector<TypeCheckingBlock> type_checking_blocks;  // module level only, in source order
  std::vector<Event> events;             // what the module body does at import time
  std::optional<std::vector<std::string>> dunder_all;  // literal `__all__`, if any
  // Literal module-level `__lazy_modules__` (PEP 810), if any: the last one assigned.
  std::optional<std::vector<std::string>> lazy_modules;
  bool future_annotations = false;       // `from __future__ import annotations`
  std::vector<DynamicImport> dynamic_imports;
  // Dotted names passed to calls, ordered by (function, event): -1 (the module
  // body) first, then by function index.
  std::vector<CallArgument> call_arguments;
  std::vector<StoredParameter> stored_parameters;  // in source order
  std::vector<SyntaxProblem> syntax_problems;  // ERROR / MISSING nodes; file still analysed
  uint32_t lines = 0;
  std::vector<Alias> aliases;            // module-level aliases of callables, in source order
  // Conditions events sit under, from the `if` tests on the way the simulator
  // decides (Event::guard; an early `if T: return` puts what follows under
  // !(T)): atoms such as `sys.platform==win32`, `sys.version_info>=3.8`,
  // `os.name!=nt`, `__debug__`, and in a metaclass's __new__/__init__
  // `bases==A,B.C` (the bases of the class being made), joined with `&&`, `!`
  // and parentheses (evaluate_guard in simulator.cpp). A guard is necessary
  // for the event to run; Event::conditional says whether other tests apply.
  std::vector<std::string> guards;

  // What `from this_module import *` may bind as `name`, by this module's own
  // facts: with a literal __all__, only what it lists (the entry returned);
  // without one, a name not starting with `_`, provided the module binds it at
  // module level (the caller checks: `name` itself is returned). Null: never.
  const std::string* star_candidate(const std::string& name) const {
    if (dunder_all) {
      auto it = std::find(dunder_all->begin(), dunder_all->end(), name);
      return it == dunder_all->end() ? nullptr : &*it;
    }
    return name.empty() || name.front() == '_' ? nullptr : &name;
  }

  // Qualified name of `u`'s innermost enclosing function ("" if none).
  std::string_view function_name(const NameUse& u) const {
    return u.function < 0 ? std::string_view() : std::string_view(functions[u.function].qualified_name);
  }
  // Qualified name of `u`'s innermost function or class ("" at module level).
  std::string_view scope_name(const NameUse& u) const {
    return u.scope_class >= 0 ? std::string_view(classes[u.scope_class].qualified_name) : function_name(u);
  }
};

// Collects the facts of one file's source. Pure: bytes in, facts out.
// `parser` must be a Python parser (ts::make_python_parser); pass null to use a
// thread-local one.
ModuleFacts collect_facts(std::string_view source, ::TSParser* parser = nullptr);

}  // namespace cyclefix
