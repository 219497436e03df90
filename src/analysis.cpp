#include "analysis.hpp"

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "parallel.hpp"
#include "ts.hpp"

namespace cyclefix {

namespace {

// Reads and parses one file; the tree is dropped before returning so memory
// stays proportional to facts.
void analyse_file(FileAnalysis& fa, std::size_t index, TSParser* parser, const AnalysisOptions& options,
                  FactsCache* cache, std::vector<Diagnostic>& diags) {
  PrereadSources* pre = options.discovered ? options.preread : nullptr;  // indexed like the caller's discovery
  const bool preread = pre && index < pre->kept.size() && pre->kept[index];
  SourceText text = preread ? std::move(pre->texts[index]) : read_source(fa.source.path, options.max_file_size);
  fa.bytes = text.bytes.size();
  if (!text.ok) {
    diags.push_back({fa.source.display, text.problem_line, text.problem + "; skipped"});
    return;
  }
  std::string_view src = text.bytes;
  fa.content_hash = std::hash<std::string_view>{}(src);
  if (options.parse_only) {
    ts::TreePtr tree = ts::parse(parser, src);
    fa.facts.lines = static_cast<uint32_t>(std::count(src.begin(), src.end(), '\n'));
    fa.analysed = true;
    return;
  }
  // Facts depend on the bytes alone: a cached copy stands for parse + collect.
  const ContentHash key = !cache ? ContentHash{} : preread ? pre->hashes[index] : hash_bytes(src);
  if (std::optional<ModuleFacts> cached = cache ? cache->load(key, src.size()) : std::nullopt) {
    fa.facts = std::move(*cached);
  } else {
    fa.facts = collect_facts(src, parser);
    if (cache) cache->store(key, src.size(), fa.facts);
  }
  fa.analysed = true;
  fa.rewritable = fa.facts.syntax_problems.empty();
  for (const auto& p : fa.facts.syntax_problems) {
    diags.push_back({fa.source.display, p.line,
                     p.message + " (analysed where possible; the file will not be rewritten)"});
  }
}

// build_graph() on `jobs` threads for the import resolution, which is const
// lookups per statement and independent from file to file.
void build_graph_on(Analysis& a, unsigned jobs);

}  // namespace

ContentHash fingerprint_inputs(const Discovery& d, const AnalysisOptions& options, PrereadSources* keep) {
  std::vector<ContentHash> content(d.files.size());
  if (keep) {
    keep->texts.assign(d.files.size(), SourceText{});
    keep->kept.assign(d.files.size(), 0);
    keep->hashes.assign(d.files.size(), ContentHash{});
  }
  std::atomic<std::uint64_t> kept_bytes{0};
  parallel_for(d.files.size(), options.jobs, [] { return 0; }, [&](std::size_t i, int) {
    SourceText text = read_source(d.files[i].path, options.max_file_size);
    content[i] = text.ok ? hash_bytes(text.bytes) : hash_bytes(text.problem + ":" + std::to_string(text.problem_line));
    if (!keep || kept_bytes.fetch_add(text.bytes.size()) + text.bytes.size() > kPrereadBudget) return;
    keep->hashes[i] = content[i];
    keep->texts[i] = std::move(text);
    keep->kept[i] = 1;
  });
  std::string all;
  auto field = [&](std::string_view s) {
    all += std::to_string(s.size());
    all += ':';
    all += s;
  };
  for (const auto& r : d.roots) field(r.string());
  for (std::size_t i = 0; i < d.files.size(); ++i) {
    const SourceFile& f = d.files[i];
    field(f.path);
    field(f.display);
    field(f.module);
    field(f.is_package ? "package" : "module");
    field(content[i].hex());
  }
  for (const auto& ns : d.namespace_packages) field(ns);
  for (const auto& ext : d.extension_modules) field("extension " + ext);
  for (const auto& diag : d.diagnostics) field(diag.file + ":" + std::to_string(diag.line) + ": " + diag.message);
  return hash_bytes(all);
}

// CYCLEFIX_PROFILE: what the facts of every file hold, by kind (element
// arrays plus the strings too long for their inline buffer; malloc's own
// overhead not counted), to see where the parse stage's memory goes.
void print_facts_memory(const Analysis& a) {
  auto str = [](const std::string& x) -> std::size_t { return x.capacity() > 15 ? x.capacity() + 1 : 0; };
  auto strs = [&](const std::vector<std::string>& v) {
    std::size_t n = v.capacity() * sizeof(std::string);
    for (const auto& x : v) n += str(x);
    return n;
  };
  struct Kind {
    const char* name;
    std::size_t count = 0, bytes = 0;
  } uses{"uses"}, imports{"imports"}, events{"events"}, functions{"functions"}, definitions{"definitions"},
      classes{"classes"}, arguments{"call-arguments"};
  auto add_events = [&](const std::vector<Event>& v) {
    events.count += v.size();
    events.bytes += v.capacity() * sizeof(Event);
    for (const Event& e : v) events.bytes += str(e.name);
  };
  for (const FileAnalysis& fa : a.files) {
    const ModuleFacts& f = fa.facts;
    uses.count += f.uses.size();
    uses.bytes += f.uses.capacity() * sizeof(NameUse);
    for (const NameUse& u : f.uses) uses.bytes += str(u.dotted);
    imports.count += f.imports.size();
    imports.bytes += f.imports.capacity() * sizeof(ImportStatement);
    for (const ImportStatement& st : f.imports) {
      imports.bytes += str(st.module) + str(st.scope) + str(st.text) + st.names.capacity() * sizeof(ImportAlias);
      for (const ImportAlias& al : st.names) imports.bytes += str(al.name) + str(al.asname);
    }
    add_events(f.events);
    functions.count += f.functions.size();
    functions.bytes += f.functions.capacity() * sizeof(FunctionInfo);
    for (const FunctionInfo& fn : f.functions) {
      add_events(fn.events);
      functions.bytes += str(fn.qualified_name) + str(fn.class_name) + strs(fn.locals) +
                         strs(fn.globals) + strs(fn.import_only) + fn.param_locals.capacity() * sizeof(std::uint32_t) + strs(fn.decorators) +
                         strs(fn.returns);
    }
    definitions.count += f.definitions.size();
    definitions.bytes += f.definitions.capacity() * sizeof(Definition);
    for (const Definition& d : f.definitions) definitions.bytes += str(d.name);
    classes.count += f.classes.size();
    classes.bytes += f.classes.capacity() * sizeof(ClassInfo);
    for (const ClassInfo& c : f.classes)
      classes.bytes += str(c.qualified_name) + str(c.metaclass) + strs(c.bases) + strs(c.decorators);
    arguments.count += f.call_arguments.size();
    arguments.bytes += f.call_arguments.capacity() * sizeof(CallArgument);
    for (const CallArgument& c : f.call_arguments) arguments.bytes += str(c.keyword) + str(c.value);
  }
  std::string line = "cyclefix: profile: facts:";
  for (const Kind& k : {uses, imports, events, functions, definitions, classes, arguments})
    line += " " + std::string(k.name) + " " + std::to_string(k.count) + " (" + std::to_string(k.bytes >> 20) + " MiB)";
  std::fprintf(stderr, "%s\n", line.c_str());
}

Analysis analyse(const AnalysisOptions& options) {
  Analysis a;
  if (options.progress) options.progress->phase("finding files");
  a.discovery = options.discovered ? std::move(*options.discovered) : discover(options.discovery);
  const std::size_t n = a.discovery.files.size();
  a.files.resize(n);
  for (std::size_t i = 0; i < n; ++i) a.files[i].source = std::move(a.discovery.files[i]);
  a.discovery.files = {};

  std::optional<FactsCache> cache;
  if (!options.cache_dir.empty() && !options.parse_only) {
    cache.emplace(options.cache_dir);
    if (!cache->enabled()) {
      a.cache_problem = cache->problem();
      cache.reset();
    }
  }
  if (options.progress) options.progress->phase("parsing", n);

  std::vector<std::vector<Diagnostic>> per_file(n);
  parallel_for(n, options.jobs, [] { return ts::make_python_parser(); }, [&](std::size_t i, ts::ParserPtr& parser) {
    analyse_file(a.files[i], i, parser.get(), options, cache ? &*cache : nullptr, per_file[i]);
    if (options.progress) options.progress->advance();
  });

  a.diagnostics = a.discovery.diagnostics;
  for (std::size_t i = 0; i < n; ++i) {
    a.total_bytes += a.files[i].bytes;
    a.total_lines += a.files[i].facts.lines;
    for (auto& d : per_file[i]) a.diagnostics.push_back(std::move(d));
  }
  std::stable_sort(a.diagnostics.begin(), a.diagnostics.end(), [](const auto& x, const auto& y) {
    return std::tie(x.file, x.line) < std::tie(y.file, y.line);
  });
  if (cache) a.cache = cache->stats();
  if (profiling()) print_facts_memory(a);
  if (options.parse_only) return a;
  if (options.progress) options.progress->phase("graph");
  build_graph_on(a, options.jobs);
  return a;
}

void build_graph(Analysis& a, unsigned jobs) { build_graph_on(a, jobs); }

namespace {

void build_graph_on(Analysis& a, unsigned jobs) {
  // Module ids in name order, so every later stage is deterministic.
  struct Entry {
    std::string name;
    int file;
    bool is_package;
    bool is_namespace;
    bool is_extension = false;
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    const auto& s = a.files[i].source;
    entries.push_back({s.module, static_cast<int>(i), s.is_package, false});
  }
  for (const auto& ns : a.discovery.namespace_packages) entries.push_back({ns, -1, true, true});
  for (const auto& ext : a.discovery.extension_modules) entries.push_back({ext, -1, false, false, true});
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    return std::tie(x.name, x.file) < std::tie(y.name, y.file);
  });
  a.modules = ModuleIndex();
  for (const auto& e : entries) {
    if (a.modules.find(e.name)) {
      // Discovery keeps module names unique; a namespace dir named like a file loses.
      if (e.file >= 0) a.files[e.file].analysed = false;
      continue;
    }
    ModuleInfo info;
    info.name = e.name;
    info.is_package = e.is_package;
    info.is_namespace = e.is_namespace;
    info.is_extension = e.is_extension;
    info.file = e.file;
    if (e.file >= 0) info.display = a.files[e.file].source.display;
    ModuleId id = a.modules.add(std::move(info));
    if (e.file >= 0) a.files[e.file].module = id;
  }

  parallel_for(a.files.size(), jobs, [] { return 0; }, [&](std::size_t i, int) {
    FileAnalysis& fa = a.files[i];
    fa.resolved.clear();
    if (!fa.analysed) return;
    fa.resolved.reserve(fa.facts.imports.size());
    for (const ImportStatement& st : fa.facts.imports) fa.resolved.push_back(a.modules.resolve(fa.module, st));
  });
  profile_stage("graph/reach");
  a.reach = compute_reachability(a.files, a.modules);
  profile_stage("graph/edges");

  // An import inside a function body runs at import time when that body does,
  // and its edge starts at the module whose import-time code ran the body: a
  // body in b that only a's module-level code calls makes an edge a -> c, not
  // b -> c (b's own import never runs it).
  // Names other modules take with `from m import name` at import time: reading
  // a lazy proxy that way reifies it (CPython 3.15 does), so such a lazy import
  // of m is an edge too.
  std::set<std::pair<ModuleId, std::string>> read_from_outside;
  for (const FileAnalysis& fa : a.files) {
    if (!fa.analysed) continue;
    for (std::size_t ii = 0; ii < fa.facts.imports.size(); ++ii)
      if (fa.facts.imports[ii].at_import_time)
        for (const ImportTarget& t : fa.resolved[ii].targets)
          if (t.reason == EdgeReason::NameFrom && t.module != fa.module) read_from_outside.insert({t.module, t.name});
  }
  auto read_by_others = [&](const FileAnalysis& fa, const ImportStatement& st) {
    for (const std::string& n : st.bound_names())
      if (read_from_outside.count({fa.module, n})) return true;
    return false;
  };
  a.graph = ImportGraph(a.modules.size());
  for (std::size_t fi = 0; fi < a.files.size(); ++fi) {
    FileAnalysis& fa = a.files[fi];
    fa.import_runs.assign(fa.facts.imports.size(), false);
    if (!fa.analysed) continue;
    for (std::size_t ii = 0; ii < fa.facts.imports.size(); ++ii) {
      const ImportStatement& st = fa.facts.imports[ii];
      if (!st.at_import_time) continue;
      if (st.is_lazy && !lazy_import_reified(fa.facts, st, a.reach, fi) && !read_by_others(fa, st)) continue;
      fa.import_runs[ii] = true;
      for (const ImportTarget& t : fa.resolved[ii].targets) {
        a.graph.add(fa.module, t.module,
                    StatementRef{static_cast<int>(fi), static_cast<int>(ii), st.line, t.reason});
      }
    }
  }
  // Only bodies reached exactly make edges: an assumed body (a call the model
  // could not resolve) pins the imports it uses, but a cycle through it would
  // be a guess, reported as a fact.
  for (const ChargedImport& c : a.reach.charged_imports) {
    if (c.assumed) continue;
    FileAnalysis& fa = a.files[c.file];
    const ImportStatement& st = fa.facts.imports[c.import];
    fa.import_runs[c.import] = true;
    ModuleId from = a.files[c.charged_file].module;
    for (const ImportTarget& t : fa.resolved[c.import].targets) {
      // The body's own ancestors are loading when it runs, not the charged module's.
      if (t.module == from) continue;
      a.graph.add(from, t.module, StatementRef{c.file, c.import, st.line, t.reason});
    }
  }
  a.graph.finish();
}

}  // namespace

bool lazy_import_reified(const ModuleFacts& facts, const ImportStatement& st, const Reachability& reach, std::size_t file) {
  const std::vector<std::string> names = st.bound_names();
  for (const NameUse& u : facts.uses) {
    if (std::find(names.begin(), names.end(), u.name()) == names.end()) continue;
    // Python 3.14+ evaluates annotations lazily (PEP 649): only reads count.
    if (u.kind == UseKind::ImportTime) return true;
    if (u.kind == UseKind::Deferred && u.function >= 0) {
      if (reach.body_runs(static_cast<int>(file), u.function)) return true;
    }
  }
  return false;
}

void release_rewrite_facts(Analysis& a) {
  for (FileAnalysis& fa : a.files) std::vector<NameUse>().swap(fa.facts.uses);
}

void release_rewrite_facts_except(Analysis& a, const std::vector<char>& keep) {
  for (std::size_t f = 0; f < a.files.size(); ++f) {
    FileAnalysis& fa = a.files[f];
    if (f < keep.size() && keep[f]) continue;
    if (std::any_of(fa.facts.imports.begin(), fa.facts.imports.end(), [](const ImportStatement& st) {
          return st.is_lazy || st.context == ImportContext::FunctionBody;
        }))
      continue;
    std::vector<NameUse>().swap(fa.facts.uses);
  }
}

}  // namespace cyclefix
