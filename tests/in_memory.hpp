// Builds an Analysis from in-memory sources, for tests of the stages after
// fact collection (no file system involved).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "simulator.hpp"

namespace cyclefix::testing_support {

// `files`: {"pkg/mod.py", source} pairs; module names follow the paths. A path
// ending in ".so" (`pkg/_ext.abi3.so`, source ignored) is an extension module.
inline Analysis analysis_of(const std::vector<std::pair<std::string, std::string>>& files) {
  Analysis a;
  for (const auto& [path, source] : files) {
    if (path.ends_with(".so")) {
      std::string mod = path.substr(0, path.find('.'));
      for (char& c : mod)
        if (c == '/') c = '.';
      a.discovery.extension_modules.push_back(mod);
      continue;
    }
    FileAnalysis fa;
    fa.source.path = path;
    fa.source.display = path;
    std::string mod = path.substr(0, path.size() - 3);  // drop ".py"
    fa.source.is_package = mod.size() >= 9 && mod.compare(mod.size() - 9, 9, "/__init__") == 0;
    if (fa.source.is_package) mod.resize(mod.size() - 9);
    for (char& c : mod)
      if (c == '/') c = '.';
    fa.source.module = mod;
    fa.facts = collect_facts(source);
    fa.content_hash = std::hash<std::string_view>{}(source);
    fa.analysed = true;
    fa.rewritable = fa.facts.syntax_problems.empty();
    a.files.push_back(std::move(fa));
  }
  build_graph(a);
  return a;
}

inline bool has_edge(const Analysis& a, const std::string& from, const std::string& to) {
  auto f = a.modules.find(from), t = a.modules.find(to);
  return f && t && a.graph.find(*f, *t) != nullptr;
}

// The prediction for `module` in `r` (a test failure when there is none).
inline const EntryPrediction& entry(const Analysis& a, const SimulationResult& r, const std::string& module) {
  static EntryPrediction none;
  for (const auto& e : r.entries)
    if (a.modules[e.module].name == module) return e;
  ADD_FAILURE() << "no entry " << module;
  return none;
}

}  // namespace cyclefix::testing_support
