// Import-time reachability: which function bodies run while a module is being
// imported. A body runs when module-level code (or a body that runs) calls it:
// a plain call, a class instantiation (its __init__/__new__/__post_init__), a
// decorator or metaclass application, a default value. Calls into first-party
// functions of other modules are followed too. This is the first attempt's
// mistake in the seed: a local import in an __init__ that a module-level call
// still ran.
#pragma once

#include <map>
#include <set>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "facts.hpp"
#include "module_index.hpp"

namespace cyclefix {

struct FileAnalysis;

// A function body: file index and index into that file's facts.functions.
struct BodyRef {
  int file = -1;
  int function = -1;
  bool operator==(const BodyRef&) const = default;
};

// What a name bound by a module-level import refers to.
struct ImportBinding {
  ModuleId module = 0;
  // "" when the name is bound to the module itself. A view into the facts (an
  // import alias's name), which outlive every table that holds bindings: the
  // resolver's and the simulator's event table hold about 2 M of them on the
  // 50,000-file benchmark tree.
  std::string_view name;
};

// Resolves names in one file to first-party bodies, classes and modules.
class CalleeResolver {
 public:
  // How far calls are followed. The import-order simulator replays every call
  // tree once per entry point, and on SymPy following the calls that Full adds
  // (bases, aliases, instances, class hooks) made it 25x slower; it keeps the
  // narrower resolution it was measured with (docs/architecture.md).
  enum class Reach { Full, Simulator };
  CalleeResolver(const std::vector<FileAnalysis>& files, const ModuleIndex& modules, Reach reach = Reach::Full);
  ~CalleeResolver();
  struct FileIndex;  // per-file name tables, built once in the constructor
  CalleeResolver(const CalleeResolver&) = delete;
  CalleeResolver& operator=(const CalleeResolver&) = delete;

  // The bodies a call to `callee` (as written in file `file`, inside `in_function`
  // or -1 at module level) runs: one function (every def of its name), a
  // class's constructors (and its metaclass's __call__), `Base.__init_subclass__`
  // for what creating a subclass of Base runs (the bases' __init_subclass__, the
  // metaclass's __prepare__/__new__/__init__). Methods are looked up through the
  // first-party bases; `self.m`, `cls.m` and `super.m` (for `super().m`) in the
  // enclosing class.
  std::vector<BodyRef> resolve_call(int file, int in_function, std::string_view callee) const;

  // When resolve_call finds nothing for a method call on an object the model
  // cannot type (`obj.m()`, `self.m()` with no `m` in the class or its bases):
  // every first-party method named `m`. The model assumes they may run.
  std::vector<BodyRef> assume_call(int file, int in_function, std::string_view callee) const;

  // `self.m()` / `cls.m()` inside a method of class C: the overrides of `m` in
  // first-party subclasses of C (virtual dispatch: the object may be one of
  // them). The model assumes they may run.
  // `protocol`: for a Protocol event's `self.__dunder__` (dunders are
  // otherwise left out: an explicit `self.__init__()` is the class's own).
  std::vector<BodyRef> overrides(int file, int in_function, std::string_view callee, bool protocol = false) const;

  // The methods a Protocol event ("operand.__dunder__", Event::Kind::Protocol)
  // runs: the operand's class's, exactly, when the model knows that class
  // (`self` in a method, with its subclasses' overrides assumed; a
  // module-level instance); nothing when the operand is a class, a function,
  // or another package's object (their type's methods are not first-party);
  // otherwise every first-party method of that name, assumed (`by_name`).
  struct ProtocolCall {
    std::vector<BodyRef> exact, overrides;
    bool by_name = false;
  };
  ProtocolCall protocol(int file, int in_function, std::string_view name) const;
  // The other protocol methods a Protocol event's name stands for: the ones
  // CPython falls back to or pairs with it (`__iter__`: `__next__`;
  // `__bool__`: `__len__`; `__hash__`: `__eq__`; `__ne__`: `__eq__`).
  static std::span<const std::string_view> protocol_companions(std::string_view dunder);
  // Every first-party method called `name`.
  const std::vector<BodyRef>& methods_named(std::string_view name) const;

  // The bodies of the decorators applied to function `function` of `file`
  // (`@factory(args)` gives the defs the factory returns) that call the
  // decorated object: then the decorated function runs when it is defined.
  bool decorators_call(int file, const std::vector<std::string>& decorators, int in_function) const;

  // The bodies decorator `d` (as in FunctionInfo::decorators, written in
  // `file` inside `in_function`) applies: the function it names, or the defs a
  // factory `name()` returns.
  std::vector<BodyRef> decorator_bodies(int file, int in_function, const std::string& d) const;

  // What runs instead of decorated function `fn` of `file` when it is called:
  // the nested defs its decorators return (`def deco(f): def wrapper(...): ...; return wrapper`).
  std::vector<BodyRef> wrappers(int file, const FunctionInfo& fn) const;

  // A module-level `__getattr__` (PEP 562) of module `m` that serves `name`
  // (not defined at module level), or nothing.
  std::optional<BodyRef> module_getattr(ModuleId m, std::string_view name) const;

  // What `name` (first component of a dotted chain) is bound to by a module-level
  // import in `file`, if it is a first-party binding.
  std::optional<ImportBinding> binding(int file, std::string_view name) const;

  // binding(), or else the first-party module whose star import (`from m import
  // *` at module level, the last one that exports it) bound `name` in `file`.
  // For calls and classes: the name is copied at the star import, so the
  // simulator's reads of it do not go through this.
  std::optional<ImportBinding> binding_or_star(int file, std::string_view name) const;

  // `x.attr...` where x names an instance of a first-party class (a module-level
  // `x = Cls(...)`, in `file` or where an import of `file` took x from) whose
  // class has a `__getattr__` (its own or a base's) and no method `attr`: that
  // __getattr__, which CPython runs when the attribute is not found otherwise
  // (LazyObject proxies such as Django's `settings`). Whether the instance has
  // the attribute already is not known: the caller assumes the hook runs.
  //
  // A property of that class (`@property`, `@cached_property`, a first-party
  // descriptor class as decorator) runs its getter, and the descriptor's
  // __get__, when read: exactly.
  struct AttributeRead {
    std::vector<BodyRef> exact, assumed;
    std::vector<BodyRef> overrides;  // `self.attr`: subclasses' getters (assumed)
  };
  // `local`: x is bound by an import inside function `in_function`.
  AttributeRead instance_attribute(int file, int in_function, std::string_view dotted, bool local) const;

  // The arguments a module-level `name = functools.partial(f, ...)` bound
  // (after f), found in `file` or through its imports: the file of the
  // partial and its CallArguments. A positional one keeps the position it had
  // in the partial call, counting f as 0.
  struct PartialArguments {
    int file = -1;
    std::vector<const CallArgument*> arguments;
  };
  std::optional<PartialArguments> partial_arguments(int file, std::string_view name, int depth = 0) const;

  // What `name` is bound to by a first-party import inside function
  // `in_function` of `file` (or a function around it), if one binds it.
  std::optional<ImportBinding> local_binding(int file, int in_function, std::string_view name) const;

  // The module `a.b.c` names when bound by `import a.b.c`: the longest first-party
  // module prefix of the dotted chain, and the rest.
  std::optional<std::pair<ModuleId, std::string>> module_prefix(int file, std::string_view dotted) const;

  // The first-party class `dotted` (as written in `file`) names: its file and
  // qualified name. Follows imports, re-exports and module-level aliases.
  std::optional<std::pair<int, std::string>> find_class(int file, std::string_view dotted) const;

  // Method `name` of class `qualified` in `file`, or of its first first-party
  // base that has one.
  std::vector<BodyRef> class_method(int file, const std::string& qualified, std::string_view name) const;

  // Functions of `file` whose def statement runs when body `function` (-1: the
  // module body) runs: defined directly in it or in a class body inside it.
  std::span<const int> defined_in(int file, int function) const;
  // The same for classes: made when body `function` runs.
  std::span<const int> classes_in(int file, int function) const;

 private:
  struct ClassRef {
    int file = -1;
    std::string name;  // qualified
  };
  std::vector<BodyRef> lookup(int file, std::string_view dotted, int depth) const;
  // The defs of one name (FileIndex::functions) that run when it is called:
  // all but `@overload` stubs.
  std::vector<BodyRef> defs(int file, const std::vector<int>& functions) const;
  std::optional<ClassRef> resolve_class(int file, std::string_view dotted, int depth) const;
  std::vector<BodyRef> method(const ClassRef& c, std::string_view name, int depth, bool skip_self = false) const;
  std::optional<ClassRef> metaclass_of(const ClassRef& c, int depth) const;
  std::vector<BodyRef> constructors(const ClassRef& c, int depth) const;
  std::vector<BodyRef> simulator_constructors(int file, const std::string& class_name, int depth) const;
  std::vector<BodyRef> subclass_hooks(const ClassRef& c, int depth) const;
  std::vector<BodyRef> in_module(ModuleId m, std::string_view name, int depth) const;
  std::vector<BodyRef> through_import(int file, std::string_view dotted, int depth) const;
  std::vector<BodyRef> factory_product(int file, std::string_view factory, std::string_view rest, int depth) const;
  std::optional<ClassRef> instance_class(int file, std::string_view name, int depth) const;
  // The class of what function `factory` returns, when it returns `Cls(...)`
  // (Django's `_lazy_re_compile` returning a SimpleLazyObject).
  std::optional<ClassRef> returned_class(int file, std::string_view factory, int depth) const;
  // From module m down the submodules `rest` names: (the deepest, what is left).
  std::pair<ModuleId, std::string> submodule(ModuleId m, std::string rest) const;
  // The name as `m`'s star import binds it (a view into the facts), if it does.
  std::optional<std::string_view> star_export(ModuleId m, std::string_view name, int depth) const;
  std::optional<ClassRef> enclosing_class(int file, int in_function) const;
  // Reading attribute `attr` of an instance of c (instance_attribute).
  AttributeRead attribute_read(const ClassRef& c, std::string_view attr) const;
  // What reading attribute b (a def of a class, or a descriptor's) runs: its
  // getter and the descriptors' __get__ when it is a property or descriptor,
  // else nothing (reading a plain method).
  std::vector<BodyRef> getters(BodyRef b) const;
  // The __get__ of the first-party descriptor classes among fn's decorators.
  std::vector<BodyRef> descriptors(int file, const FunctionInfo& fn) const;

  const std::vector<FileAnalysis>& files_;
  const ModuleIndex& modules_;
  std::vector<FileIndex> index_;
  std::unordered_map<std::string, std::vector<BodyRef>> methods_by_name_;  // for assume_call
  // For overrides: "file\tclass" -> the first-party classes naming it as a base.
  std::unordered_map<std::string, std::vector<ClassRef>> subclasses_;
  bool simulator_ = false;
};

// One body reached while a module's own module-level code runs.
struct ReachStep {
  BodyRef body;
  int parent = -1;   // index of the step whose body made the call; -1: module-level code
  int line = 0;      // line of the call (in the parent's file)
  std::string call;  // the call as the model read it ("make_verifier", "Cls", "@deco", ...)
  bool assumed = false;  // reached only through a call the model could not resolve exactly
};

// An import statement inside a function body that runs while module
// `charged_file`'s module-level code runs (possibly a body of another file).
struct ChargedImport {
  int charged_file = -1;
  int file = -1;
  int import = -1;
  bool assumed = false;  // in a body only assumed to run
};

// For every file, which of its functions run during the import of some module
// (union over all modules' import-time code).
struct Reachability {
  std::vector<std::vector<bool>> runs;  // [file][function]
  // Reached only through calls the model could not resolve exactly (see
  // CalleeResolver::assume_call): the model assumes they run.
  std::vector<std::vector<bool>> assumed;  // [file][function]
  // For an assumed body, the assumption its chain starts with.
  enum class Assumption : std::uint8_t {
    Untyped,   // a method call on an object of unknown class (assume_call)
    Override,  // a subclass's override of `self.m` (virtual dispatch)
    Getattr,   // a __getattr__ that may serve an attribute
    Closure,   // a def nested in a callee, which may run later or never
    Operator,  // a protocol method an operator or builtin runs on an object of unknown class
    Stored,    // a callable kept on an instance (`self.attr = p`) that a method calls later
  };
  std::vector<std::vector<Assumption>> assumption;  // [file][function]
  // The words `plan --explain` uses for an assumption.
  static const char* describe(Assumption a);
  // For each body that runs: the module whose import-time code first reached it.
  std::vector<std::vector<int>> reached_from;  // [file][function] -> file index, -1 if not
  // ... and the line of the module-level statement in that file whose call started the chain.
  std::vector<std::vector<int>> reached_line;  // [file][function] -> line, 0 if not
  // Imports in function bodies that import-time code runs, charged to the module
  // whose code runs them: its import-time edges.
  std::vector<ChargedImport> charged_imports;
  // With keep_steps: per file, the bodies its module-level code runs.
  std::vector<std::vector<ReachStep>> steps;

  bool body_runs(int file, int function) const {
    return function >= 0 && runs[file][function];
  }
};

// `roots`, when given: only the module-level code of the files it marks is
// walked (the planner's question "does this body run while a module the
// cycle's modules import is being imported?").
Reachability compute_reachability(const std::vector<FileAnalysis>& files, const ModuleIndex& modules,
                                  bool keep_steps = false, const std::vector<char>* roots = nullptr);
// The same with a resolver (CalleeResolver::Reach::Full) the caller already built.
Reachability compute_reachability(const std::vector<FileAnalysis>& files, const ModuleIndex& modules,
                                  const CalleeResolver& resolver, bool keep_steps = false,
                                  const std::vector<char>* roots = nullptr);

// The index of the function whose body directly contains an import or use with
// this qualified scope, or -1.
int function_index(const ModuleFacts& facts, std::string_view qualified_name);

// The innermost function whose body holds byte `pos`, or -1.
int innermost_function(const ModuleFacts& facts, std::uint32_t pos);

// Functions whose bodies enclose function `i`'s definition, innermost first.
std::vector<int> enclosing_functions(const ModuleFacts& facts, int i);

// For each function using one of `names` (deferred uses), the names it must
// import itself: those no enclosing function also uses (a closure sees the
// outer function's local import). Functions left with nothing are omitted.
std::map<int, std::set<std::string>> functions_importing(const ModuleFacts& facts,
                                                         const std::vector<std::string>& names);

}  // namespace cyclefix
