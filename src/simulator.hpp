// The import-order simulator: replays, for each first-party module used as the
// first import of a fresh interpreter, what CPython's import system does
// (design.md §3), and predicts whether it raises a circular-import error.
//
// Model: modules enter sys.modules before their body runs; a body replays its
// events in order (imports, bindings, import-time uses, calls into bodies that
// run at import time); `from X import n` needs n bound in X at that moment or a
// submodule X.n (Python 3.7+ falls back to sys.modules); `X.attr` needs attr
// bound; a failing module is removed from sys.modules and the error propagates
// up to the entry, unless a try/except ImportError catches it. What the model
// cannot follow makes the entry `uncertain` instead of a guess. A lazy import
// (PEP 810: `lazy import`, `__lazy_modules__`, or any eligible import in
// EntryMode::Lazy) binds its names to proxies; the first import-time read of
// one (a use, a call, `from m import name`, `m.name`) runs the import there.
#pragma once

#include <nlohmann/json.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "reachability.hpp"

namespace cyclefix {

enum class EntryMode {
  Normal,  // `import M`: parent packages run first
  Bare,    // M's ancestor packages exist but their __init__ never ran (lazy imports, the seed's test)
  // `python3.15 -X lazy_imports=all` with `importlib.import_module(M)` (PEP 810):
  // parents run first as in Normal, and every module-level import outside a
  // try, a class body and a star import binds a proxy that imports on first read.
  Lazy,
};
std::string_view to_string(EntryMode m);

struct ChainHop {
  ModuleId module = 0;  // its file, as displayed: ModuleInfo::display
  int line = 0;  // the statement in `module` that led to the next hop (or failed)
  // (No file of its own: the module names it. A chain has dozens of hops, and
  // on the 50,000-file benchmark tree each simulation's failures hold 2 M.)
};

struct EntryPrediction {
  ModuleId module = 0;
  bool fails = false;
  bool circular = false;  // the failure is a circular-import error (CPython's "partially initialized")
  std::string error;    // "ImportError" / "AttributeError"
  std::string message;  // CPython's wording
  std::vector<ChainHop> chain;
  // Circular failures: the partially initialised module the failing statement
  // needed (it is on the chain; the loop runs from its hop to the last one).
  std::optional<ModuleId> partial;
  bool uncertain = false;
  std::vector<std::string> unknowns;  // why the prediction is uncertain
  // How many of `unknowns` are circular failures in a branch the model cannot
  // decide: when the entry fails with a circular import anyway, both arms of
  // each such branch end in one, and the prediction "fails" is certain.
  std::size_t circular_branches = 0;
};

struct SimulationResult {
  EntryMode mode = EntryMode::Normal;
  std::vector<EntryPrediction> entries;  // one per simulated module, in module order
  std::size_t skipped = 0;  // module imports that did not run the module's body (settled modules)
  std::size_t failing() const;  // circular failures
  std::size_t uncertain() const;
};

// Import statements (file index, import index) to treat as deferred: moved into
// the functions that use them (or under TYPE_CHECKING), so they do not run at
// import time. What the planner's --only-failing mode checks its cuts with.
// Also statements the planner rewrites in place to import from a module that
// does not import back (bypass): they run and bind their names, but import no
// module on the loop (modelled as importing nothing first-party).
// And statements rewritten to import the module instead of reading names from
// it (late binding: `from .b import f` -> `from . import b`, uses read `b.f`):
// they run the module's body but read nothing from it, so a partially
// initialised module no longer makes them fail.
struct DeferredImports {
  std::set<std::pair<int, int>> moved;    // do not run at import time
  std::set<std::pair<int, int>> rebound;  // run, bind their names, run no first-party body
  std::set<std::pair<int, int>> late;     // run the module's body, bind the module, read no name from it
  std::set<std::pair<int, int>> lazified; // `lazy` written in front (PEP 810): bind proxies, import on first read
  // `from M import a, b` split: these bound names move into functions, the
  // statement runs with the others (neither read nor bound at module level).
  std::map<std::pair<int, int>, std::vector<std::string>> split;
  // Moved down the module (--allow-late-imports): runs after the module-level
  // statement ending on this line, before anything below it.
  std::map<std::pair<int, int>, int> below;
  bool empty() const {
    return moved.empty() && rebound.empty() && late.empty() && lazified.empty() && split.empty() && below.empty();
  }
  void clear() {
    moved.clear();
    rebound.clear();
    late.clear();
    lazified.clear();
    split.clear();
    below.clear();
  }
  int below_line(int file, int import) const {
    if (below.empty()) return 0;
    auto it = below.find({file, import});
    return it == below.end() ? 0 : it->second;
  }
  const std::vector<std::string>* split_names(int file, int import) const {
    if (split.empty()) return nullptr;
    auto it = split.find({file, import});
    return it == split.end() ? nullptr : &it->second;
  }
  bool is_lazified(int file, int import) const { return !lazified.empty() && lazified.count({file, import}); }
  bool is_late(int file, int import) const { return !late.empty() && late.count({file, import}); }
  bool is_moved(int file, int import) const { return !moved.empty() && moved.count({file, import}); }
  // Moved or rebound: the statement runs no first-party module body.
  bool silenced(int file, int import) const {
    return is_moved(file, import) || (!rebound.empty() && rebound.count({file, import}));
  }
};

class EventCache;

// What every simulation of one analysed tree shares, whatever the entry mode
// and the deferred statements: the call resolver (CalleeResolver::Reach::Simulator)
// and what each event resolves to (the bodies a call runs, what a name is
// bound to, the modules an import names), built on first use on all cores and
// read-only after that. Build it once to simulate a tree again and again (the
// planner's guard and --only-failing); the functions without it build their
// own. Any number of simulations may read it at once.
class SimulationTables {
 public:
  explicit SimulationTables(const Analysis& a);
  ~SimulationTables();
  SimulationTables(const SimulationTables&) = delete;
  SimulationTables& operator=(const SimulationTables&) = delete;
  const EventCache& events() const;  // built on first use

 private:
  const Analysis& a_;
  CalleeResolver resolver_;
  mutable std::once_flag events_once_;
  mutable std::unique_ptr<EventCache> events_;
};

// Simulates `import M` for every first-party module M with a body (or only
// `entries`, when given), skipping the `deferred` statements.
SimulationResult simulate(const Analysis& a, EntryMode mode, const std::vector<ModuleId>& entries = {},
                          const DeferredImports& deferred = {});
// The same with the tree's tables built once by the caller.
SimulationResult simulate(const Analysis& a, const SimulationTables& tables, EntryMode mode,
                          const std::vector<ModuleId>& entries = {}, const DeferredImports& deferred = {});

// Simulations of at least this many entries (default 32) first find the
// modules whose import can neither fail nor be uncertain, and import those
// without running their bodies; the predictions are the same either way. 0:
// always; SIZE_MAX: never. For tests and measurements.
void set_simulator_skip_threshold(std::size_t entries);

// The interpreter the simulation predicts for: `if` tests on these
// (Event::guard) are decided. Defaults: the platform cyclefix was built for and
// the Python version of the `python3` on PATH (3.11 when there is none).
struct SimulationTarget {
  std::string platform;  // sys.platform: "linux", "darwin", "win32"
  std::string os_name;   // os.name: "posix", "nt"
  int major = 0, minor = 0;
};
SimulationTarget default_simulation_target();
// Sets the target of later simulations ("" / 0 fields keep their defaults).
void set_simulation_target(const SimulationTarget& t);
const SimulationTarget& simulation_target();
// Whether guard expression `g` (ModuleFacts::guards) may hold for `t`: false
// only when it is decided false.
bool evaluate_guard(std::string_view g, const SimulationTarget& t);
enum class GuardValue { False, True, Unknown };
// The bases of the class statement a metaclass's __new__/__init__ runs for:
// whether they are the classes `names` (as written in the metaclass's file).
struct GuardBases {
  virtual ~GuardBases() = default;
  virtual GuardValue equal(const std::vector<std::string_view>& names) const = 0;
};
// `g` for `t`, with `bases` (or null: none known) for `bases==` atoms;
// `read_bases` (if given) says whether the value used them.
GuardValue evaluate_guard(std::string_view g, const SimulationTarget& t, const GuardBases* bases,
                          bool* read_bases = nullptr);

// Both entry modes of one tree, simulated on two threads (they are independent).
struct BothModes {
  SimulationResult normal, bare;
};
BothModes simulate_both(const Analysis& a, const DeferredImports& deferred = {});
// The same with the tree's tables built once by the caller.
BothModes simulate_both(const Analysis& a, const SimulationTables& tables, const DeferredImports& deferred = {});

nlohmann::json simulation_json(const Analysis& a, const SimulationResult& r);
// One line naming what simulations of this tree assume instead of follow
// (dynamic imports of other packages), or "" when nothing.
std::string simulation_assumptions(const Analysis& a);
void print_simulation(std::ostream& out, const Analysis& a, const SimulationResult& r);

}  // namespace cyclefix
