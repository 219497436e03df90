// The first-party modules of a run and import resolution: which modules an
// import statement executes or takes names from. Knows module names and facts,
// not syntax trees or the file system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "facts.hpp"

namespace cyclefix {

using ModuleId = std::uint32_t;

struct ModuleInfo {
  std::string name;           // dotted name
  bool is_package = false;    // __init__.py or namespace directory
  bool is_namespace = false;  // PEP 420: no body
  int file = -1;              // index into the run's files; -1 for namespace packages
  std::string display;        // file path shown to users ("" for namespace packages)
  bool is_extension = false;  // compiled (.so/.pyd): runs no first-party Python, attributes unknown
};

// Why an import statement makes module `to` run or be needed.
enum class EdgeReason {
  Executes,   // the statement imports `to` (or `to` is a package on the dotted path)
  NameFrom,   // `from to import name` takes a name bound in `to`
  Submodule,  // `from pkg import sub` where `to` is the submodule pkg.sub
};
std::string_view to_string(EdgeReason r);

struct ImportTarget {
  ModuleId module = 0;
  EdgeReason reason = EdgeReason::Executes;
  std::string name;  // the imported name for NameFrom/Submodule
};

struct ResolvedImport {
  std::vector<ImportTarget> targets;      // first-party modules, no duplicates, in execution order
  std::string absolute_module;            // the `from`/`import` module made absolute ("" if unresolvable)
  bool first_party = false;               // the top-level package is one of ours
  std::vector<std::string> unresolved;    // first-party names that match no module or are out of range
  std::string_view error;  // a fixed message (static), e.g. "attempted relative import beyond top-level package"
};

class ModuleIndex {
 public:
  ModuleId add(ModuleInfo info);  // names must be unique; parents are added by the caller
  std::optional<ModuleId> find(std::string_view name) const;
  const ModuleInfo& operator[](ModuleId id) const { return modules_[id]; }
  const std::vector<ModuleInfo>& modules() const { return modules_; }
  std::size_t size() const { return modules_.size(); }
  bool has_top_level(std::string_view top) const;

  // Resolves one statement of module `importer`. Follows design.md §3-4: ancestors
  // of the importer are not executed (they are already loading) and appear only
  // when a name is taken from them.
  ResolvedImport resolve(ModuleId importer, const ImportStatement& stmt) const;

  // The package a relative import of `level` dots starts from, or nullopt when out of range.
  std::optional<std::string> relative_base(ModuleId importer, int level) const;

 private:
  std::vector<ModuleInfo> modules_;
  std::unordered_map<std::string, ModuleId> by_name_;
  std::unordered_map<std::string, int> top_levels_;
};

// True when `ancestor` is a proper dotted prefix of `module` ("a" of "a.b").
bool is_ancestor(std::string_view ancestor, std::string_view module);

}  // namespace cyclefix
