// Where a module-level name really comes from. `from pkg import Name` often
// reads a name that pkg/__init__.py only re-binds from `pkg.sub` (or from the
// standard library): importing it from there instead is the one-line fix a
// reviewer writes for many cycles (the bypass strategy, docs/planner.md).
//
// A hop is followed only through a *pure* re-export: the module binds the name
// exactly once at module level, by a plain module-level `from Y import m [as
// name]` (or a star import of a first-party module that defines it), and no
// function of the module declares it `global`. Anything else (a name re-bound
// after the import, bound in a try or an if, assigned, defined) makes that
// module the definer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"

namespace cyclefix {

struct OriginHop {
  std::string module;  // absolute dotted name
  std::string name;    // the name bound in `module` ("" when the hop is a module itself)
  bool first_party = false;
  bool is_module = false;  // the object is the module `module` (an `import a.b as n` or a submodule)
};

struct OriginChain {
  // hops[0] is the module and name asked about; each next hop is where the
  // previous one took the name from; the last is the definer (or the first
  // module outside the tree).
  std::vector<OriginHop> hops;
  std::string stop;  // why the chain ends where it does, for the plan's reasons
};

// The chain for `name` as bound in first-party module `module`.
OriginChain origin_chain(const Analysis& a, const std::string& module, const std::string& name);

}  // namespace cyclefix
