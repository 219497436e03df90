// Verifying with a real interpreter: imports each module first, in a fresh
// Python process, and classifies what happened (design.md §2 lesson 6). Knows
// processes and Python's import system, not the graph: it checks what the
// analysis predicts.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator.hpp"  // EntryMode, to_string(EntryMode)

namespace cyclefix {

// How the module is entered: EntryMode (simulator.hpp, shared with the
// simulator so that predictions and verification speak of the same thing).
//   Normal: `importlib.import_module(module)`, so its ancestor packages'
//           __init__.py bodies run first, as in any plain import.
//   Bare:   every ancestor package is created and put in sys.modules (and set as
//           an attribute of its parent) without running its __init__.py, then the
//           module is imported. This is what lazy imports (Cinder, PEP 810) see,
//           and what the seed's regression test does. A bare package never runs
//           its body, so `from pkg import NAME_FROM_ITS_INIT` fails there with a
//           plain (non-circular) ImportError.

// Where each module is imported first. Both give every module an interpreter
// of its own whose sys.modules holds only what start-up loaded.
//   Fork:    one server interpreter per worker starts once (importing nothing
//            but sys and os, loaded by start-up anyway) and forks a child per
//            module that runs verify_child_code() as `python -c` would. Saves an
//            interpreter start (and site) per module. Lazy entry mode uses
//            Process: the server would need -X lazy_imports=all, untested.
//   Process: a fresh `python -c` per module, as before.
enum class Isolation { Fork, Process };

struct VerifyOptions {
  std::string python = "python3";  // looked up on PATH when it has no slash
  EntryMode mode = EntryMode::Normal;
  unsigned jobs = 0;       // interpreters run at once; 0: all cores
  double timeout_s = 30;   // per module; the interpreter is killed after it
  Isolation isolation = Isolation::Fork;
  // PYTHONPYCACHEPREFIX=<a private temporary directory, removed after the run>
  // with bytecode writing on, so each source file is compiled once per run, not
  // once per module that imports it; nothing is written into the tree. Off:
  // PYTHONDONTWRITEBYTECODE=1, every interpreter compiles what has no .pyc.
  bool bytecode_cache = true;
  // Told (once per distinct text) when the fork server cannot start or stops
  // and fresh processes are used instead, or the cache directory cannot be made.
  std::function<void(const std::string&)> note;
};

enum class ImportOutcome {
  Ok,        // imported
  Circular,  // ImportError/AttributeError with the partially-initialised wording
  Other,     // anything else: missing dependency, SyntaxError, SystemExit, timeout, crash
};

struct VerifyResult {
  std::string module;
  ImportOutcome outcome = ImportOutcome::Other;
  std::string error_type;  // exception class ("ImportError", "pkg.errors.Boom"), "Timeout",
                           // "InterpreterExit", "SpawnError"; "" when Ok
  std::string message;     // str(exception) or what went wrong; "" when Ok
};

// Imports each of `modules` in its own fresh interpreter (options.isolation),
// `sys_path_roots` first on sys.path (made absolute; the current directory is
// not on it), PYTHONPATH unset, nothing written into the tree (bytecode goes to
// the run's private cache, or is not written). Site-packages stay available for
// third-party dependencies. Module output (stdout, stderr) is discarded.
// Results are in input order.
std::vector<VerifyResult> verify_modules(const std::vector<std::string>& modules,
                                         const std::vector<std::string>& sys_path_roots,
                                         const VerifyOptions& options);

std::string_view to_string(ImportOutcome o);  // "ok", "circular", "other"
std::optional<EntryMode> parse_entry_mode(std::string_view s);  // "normal", "bare", "lazy"
std::optional<Isolation> parse_isolation(std::string_view s);    // "fork", "process"

// {"entry_mode", "python", "results": [{"module","outcome","error_type","message"}],
//  "counts": {"ok","circular","other"}}
nlohmann::json verify_json(const std::vector<VerifyResult>& results, const VerifyOptions& options);

// The Python program each interpreter runs (`python -c CODE MODE MODULE ROOT...`),
// printing one JSON line {"outcome","error_type","message"} on its standard
// output. Exposed for the generated pytest file and for tests.
std::string_view verify_child_code();

struct PytestFileOptions {
  // The directory the pytest file will be written to. When set, roots are
  // written relative to it (unless they only share "/" with it); when empty,
  // roots are written as given: already relative to the file's directory, or absolute.
  std::filesystem::path file_dir;
  double timeout_s = 60;  // per import; a timeout skips, like any non-circular error
};

// The text of a self-contained pytest file that, for every module and both
// entry modes, imports the module first in a fresh interpreter (sys.executable)
// and fails naming the module and mode on a circular-import error. Other errors
// (e.g. a missing third-party dependency) skip. Without pytest installed the
// file also runs as a plain script (`python3 FILE`), exiting 1 on a failure.
std::string pytest_file(const std::vector<std::string>& modules,
                        const std::vector<std::string>& sys_path_roots,
                        const PytestFileOptions& options = {});

}  // namespace cyclefix
