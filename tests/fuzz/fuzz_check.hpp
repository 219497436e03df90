// The promises the fuzz target checks, shared with the regression tests
// (tests/test_fuzz_regressions.cpp). See tests/fuzz/fuzz_rewrite.cpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../in_memory.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "rewrite.hpp"

namespace cyclefix::fuzzing {

using Triple = std::tuple<int, std::string, std::string, std::string>;  // level, module, name, alias

inline std::set<Triple> imported(const ModuleFacts& f) {
  std::set<Triple> out;
  for (const ImportStatement& st : f.imports)
    for (const ImportAlias& al : st.names)
      out.insert({st.is_from ? st.level : -1, st.is_from ? st.module : "", al.name, al.asname});
  return out;
}


struct Run {
  std::vector<std::pair<std::string, std::string>> files;
  RewriteResult result;
  std::size_t planned = 0;
};

inline Run run_once(std::vector<std::pair<std::string, std::string>> files) {
  Run r;
  r.files = std::move(files);
  Analysis a = testing_support::analysis_of(r.files);
  CycleReport cycles = build_cycle_report(a, 20);
  PlanOptions po;
  po.time_limit_s = 2;
  CutPlan plan = plan_cuts(a, cycles, po);
  r.planned = plan.cuts.size();
  std::vector<std::string> sources;
  for (const auto& f : r.files) sources.push_back(f.second);
  r.result = rewrite(a, cycles, plan, RewriteOptions{}, &sources);
  return r;
}

// The promises above for one a.py; empty when they hold, else which one broke
// and the text that shows it.
inline std::string check_rewrite_promises(const std::string& a_py) {
  auto broken = [](const char* promise, const std::string& detail) { return std::string(promise) + "\n" + detail; };
  std::vector<std::pair<std::string, std::string>> files = {
      {"pkg/__init__.py", ""},
      {"pkg/a.py", a_py},
      {"pkg/b.py", "import pkg.a\n\nA = pkg.a\n\n\ndef helper(x):\n    return x\n\n\nclass Base:\n    pass\n"},
  };
  const ModuleFacts before = collect_facts(a_py);
  Run first = run_once(files);
  const bool clean = before.syntax_problems.empty();
  for (const auto& p : first.result.problems)
    if (clean && p.message.find("would not parse") != std::string::npos)
      return broken("a clean input gave a rewrite that does not parse", p.message + "\n--- input ---\n" + a_py);

  std::vector<std::pair<std::string, std::string>> after = files;
  for (const FileRewrite& fr : first.result.files) {
    if (fr.file != 1) continue;  // only a.py is expected to change, but compare every file below
    const ModuleFacts now = collect_facts(fr.after);
    if (clean && !now.syntax_problems.empty())
      return broken("a clean input gave a rewrite with syntax errors", fr.after);
    std::set<Triple> was = imported(before), is = imported(now);
    is.erase({0, "typing", "TYPE_CHECKING", ""});
    was.erase({0, "typing", "TYPE_CHECKING", ""});
    if (was != is) return broken("the rewritten imports bind other names than the originals", fr.after);
  }
  for (const FileRewrite& fr : first.result.files) after[fr.file].second = fr.after;

  if (clean && first.result.problems.empty() && first.result.cuts_applied == first.planned &&
      !first.result.files.empty()) {
    Run second = run_once(after);
    if (!second.result.files.empty())
      return broken("a second run is not empty", second.result.files.front().after);
  }
  return {};
}

}  // namespace cyclefix::fuzzing
