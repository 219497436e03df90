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
#include <string>
#include <string_view>
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
  std::string name;  // "" when the name is bound to the module itself
};

// Resolves names in one file to first-party bodies, classes and modules.
class CalleeResolver {
 public:
  CalleeResolver(const std::vector<FileAnalysis>& files, const ModuleIndex& modules);
  ~CalleeResolver();
  struct FileIndex;  // per-file name tables, built once in the constructor
  CalleeResolver(const CalleeResolver&) = delete;
  CalleeResolver& operator=(const CalleeResolver&) = delete;

  // The bodies a call to `callee` (as written in file `file`, inside `in_function`
  // or -1 at module level) runs: one function, or a class's constructors.
  std::vector<BodyRef> resolve_call(int file, int in_function, std::string_view callee) const;

  // What `name` (first component of a dotted chain) is bound to by a module-level
  // import in `file`, if it is a first-party binding.
  std::optional<ImportBinding> binding(int file, std::string_view name) const;

  // The module `a.b.c` names when bound by `import a.b.c`: the longest first-party
  // module prefix of the dotted chain, and the rest.
  std::optional<std::pair<ModuleId, std::string>> module_prefix(int file, std::string_view dotted) const;

 private:
  std::vector<BodyRef> constructors(int file, const std::string& class_name, int depth) const;
  std::vector<BodyRef> in_module(ModuleId m, std::string_view name) const;

  const std::vector<FileAnalysis>& files_;
  const ModuleIndex& modules_;
  std::vector<FileIndex> index_;
};

// For every file, which of its functions run during the import of some module
// (union over all modules' import-time code).
struct Reachability {
  std::vector<std::vector<bool>> runs;  // [file][function]
  // For each body that runs: the module whose import-time code first reached it.
  std::vector<std::vector<int>> reached_from;  // [file][function] -> file index, -1 if not
  // ... and the line of the module-level statement in that file whose call started the chain.
  std::vector<std::vector<int>> reached_line;  // [file][function] -> line, 0 if not

  bool body_runs(int file, int function) const {
    return function >= 0 && runs[file][function];
  }
};

Reachability compute_reachability(const std::vector<FileAnalysis>& files, const ModuleIndex& modules);

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
