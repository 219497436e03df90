// The analysis pipeline up to the graph: discover -> read + parse + collect
// facts (in parallel, one parser per thread, trees dropped as soon as their
// facts are taken) -> module index -> resolve -> import-time graph.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "discovery.hpp"
#include "facts.hpp"
#include "facts_cache.hpp"
#include "import_graph.hpp"
#include "module_index.hpp"
#include "progress.hpp"
#include "reachability.hpp"
#include "source_reader.hpp"

namespace cyclefix {

// What fingerprint_inputs() read, kept for the analysis that follows when the
// run is not replayed: a cold run then reads each file once. Parallel to the
// discovery's files; a slot not kept (over the memory budget) is read again.
struct PrereadSources {
  std::vector<SourceText> texts;
  std::vector<char> kept;
  std::vector<ContentHash> hashes;  // hash_bytes() of each kept readable text
};

struct AnalysisOptions {
  DiscoveryOptions discovery;
  unsigned jobs = 0;  // 0: all cores
  std::uint64_t max_file_size = kDefaultMaxFileSize;
  bool parse_only = false;  // stop after parsing (benchmarks): no facts, no graph
  // The facts cache (facts_cache.hpp); empty: none. parse_only never uses it.
  std::filesystem::path cache_dir;
  Progress* progress = nullptr;  // parsing and graph phases, when set
  // The files, when the caller already discovered them: analyse() takes them
  // (moves its files into Analysis::files), so it is read once.
  Discovery* discovered = nullptr;
  // Files the caller already read (fingerprint_inputs), taken instead of read again.
  PrereadSources* preread = nullptr;
};

struct FileAnalysis {
  SourceFile source;
  ModuleFacts facts;
  bool analysed = false;   // read and parsed (possibly with syntax problems)
  bool rewritable = false; // analysed, no syntax problems
  std::uint64_t bytes = 0;
  std::size_t content_hash = 0;  // of the bytes analysed: the rewrite refuses a file that changed since
  ModuleId module = 0;
  std::vector<ResolvedImport> resolved;  // parallel to facts.imports
  // Parallel to facts.imports: runs while some module is being imported (module-level
  // code, or a function body that import-time code calls).
  std::vector<bool> import_runs;
};

struct Analysis {
  Discovery discovery;
  // What discovery found, but its files: analyse() moves each into files[i].source
  // (on a 50,000-file tree the paths, display names and module names of one
  // copy are some 40 MiB), so discovery.files is empty.
  std::vector<FileAnalysis> files;  // one per discovered file, in discovery's order
  ModuleIndex modules;
  ImportGraph graph;
  Reachability reach;
  std::vector<Diagnostic> diagnostics;  // discovery + per-file problems, sorted by file and line
  std::uint64_t total_lines = 0;
  std::uint64_t total_bytes = 0;
  FactsCacheStats cache;      // hits and misses of this run's facts cache
  std::string cache_problem;  // why the cache was not used, when one was asked for
};

Analysis analyse(const AnalysisOptions& options);

// A hash of everything analyse() reads from disk for `d`: the roots, each file's
// path, display name, module name and bytes (or why it cannot be read), the
// namespace packages and discovery's problems. Reads every file (in parallel);
// with `keep`, the bytes read are kept there for analyse(), up to
// kPrereadBudget bytes in all.
inline constexpr std::uint64_t kPrereadBudget = 256ull << 20;
ContentHash fingerprint_inputs(const Discovery& d, const AnalysisOptions& options, PrereadSources* keep = nullptr);

// Builds the module index, resolves imports and builds the graph from already
// collected facts. Exposed for tests that work on in-memory sources.
void build_graph(Analysis& a, unsigned jobs = 1);  // jobs 0: all cores

// Frees what only the planner and the rewriter read (each file's name uses), for
// commands that stop at the graph and the simulation. On a 50,000-file tree
// that is about a fifth of the memory the analysis holds.
void release_rewrite_facts(Analysis& a);
// The same for every file but those marked in `keep` (parallel to a.files) and
// those a later graph build still reads the uses of: files with a lazy import
// (lazy_import_reified) or a function-local one (what --prefer-lazy may hoist).
// The main command calls it once the planner has assessed its candidates
// (PlanOptions::release_uses): on the 50,000-file benchmark tree it lowers the
// peak, in the planner's guard, by about 140 MiB.
void release_rewrite_facts_except(Analysis& a, const std::vector<char>& keep);

// PEP 810: a lazy import (ImportStatement::is_lazy) of `file` imports its
// module only when a name it binds is first used. It is an import-time edge
// when a bound name is read at import time: module-level code, class bodies,
// decorators, default values, or a function body that runs at import time.
// (The graph also counts it when another module takes a bound name with
// `from m import name` at import time.)
bool lazy_import_reified(const ModuleFacts& facts, const ImportStatement& st, const Reachability& reach,
                         std::size_t file);

}  // namespace cyclefix
