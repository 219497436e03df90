#include "reach_report.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <unordered_map>

namespace cyclefix {

namespace {

// A function's first line as CPython counts it (co_firstlineno): its first
// decorator's line for a decorated def. The facts keep the def's byte range,
// so the file is read again for its line starts (only files with reached bodies).
class FirstLines {
 public:
  explicit FirstLines(const Analysis& a) : a_(a) {}
  int operator()(int file, const FunctionInfo& fn) {
    if (fn.decorators.empty()) return fn.line;
    auto it = starts_.find(file);
    if (it == starts_.end()) {
      std::vector<std::uint32_t> starts{0};
      std::ifstream in(a_.files[file].source.path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') starts.push_back(static_cast<std::uint32_t>(i + 1));
      it = starts_.emplace(file, std::move(starts)).first;
    }
    const auto& st = it->second;
    if (st.size() < 2) return fn.line;
    int line = static_cast<int>(std::upper_bound(st.begin(), st.end(), fn.begin) - st.begin());
    return std::min(line, fn.line);
  }

 private:
  const Analysis& a_;
  std::unordered_map<int, std::vector<std::uint32_t>> starts_;
};

// Module files in module-name order (the order of everything else cyclefix prints).
std::vector<int> files_by_module(const Analysis& a) {
  std::vector<int> out;
  for (std::size_t f = 0; f < a.files.size(); ++f)
    if (a.files[f].analysed) out.push_back(static_cast<int>(f));
  std::sort(out.begin(), out.end(), [&](int x, int y) {
    return a.modules[a.files[x].module].name < a.modules[a.files[y].module].name;
  });
  return out;
}

nlohmann::json chain_json(const Analysis& a, const std::vector<ReachStep>& steps, int s, int root) {
  std::vector<nlohmann::json> hops;
  for (int i = s; i >= 0; i = steps[i].parent) {
    int caller_file = steps[i].parent >= 0 ? steps[steps[i].parent].body.file : root;
    hops.push_back({{"file", a.files[caller_file].source.display},
                    {"line", steps[i].line},
                    {"call", steps[i].call},
                    {"assumed", steps[i].assumed}});
  }
  std::reverse(hops.begin(), hops.end());
  return hops;
}

}  // namespace

nlohmann::json reach_json(const Analysis& a, const Reachability& r) {
  FirstLines first_line(a);
  nlohmann::json modules = nlohmann::json::array();
  std::size_t bodies = 0, assumed = 0;
  for (int f : files_by_module(a)) {
    const auto& steps = r.steps[f];
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const FileAnalysis& fa = a.files[steps[s].body.file];
      const FunctionInfo& fn = fa.facts.functions[steps[s].body.function];
      list.push_back({{"function", fn.qualified_name},
                      {"file", fa.source.display},
                      {"line", fn.line},
                      {"first_line", first_line(steps[s].body.file, fn)},
                      {"assumed", steps[s].assumed},
                      {"chain", chain_json(a, steps, static_cast<int>(s), f)}});
      ++bodies;
      assumed += steps[s].assumed;
    }
    modules.push_back({{"module", a.modules[a.files[f].module].name},
                       {"file", a.files[f].source.display},
                       {"bodies", std::move(list)}});
  }
  return {{"version", CYCLEFIX_VERSION},
          {"bodies", bodies},
          {"assumed", assumed},
          {"modules", std::move(modules)}};
}

void write_reach_text(std::ostream& out, const Analysis& a, const Reachability& r) {
  std::size_t modules = 0, bodies = 0, assumed = 0;
  for (int f : files_by_module(a)) {
    const auto& steps = r.steps[f];
    if (steps.empty()) continue;
    ++modules;
    out << a.modules[a.files[f].module].name << " runs at import:\n";
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const FileAnalysis& fa = a.files[steps[s].body.file];
      const FunctionInfo& fn = fa.facts.functions[steps[s].body.function];
      out << "  " << fn.qualified_name << "() " << fa.source.display << ":" << fn.line;
      if (steps[s].assumed) out << " (assumed)";
      out << "\n";
      std::vector<int> chain;
      for (int i = static_cast<int>(s); i >= 0; i = steps[i].parent) chain.push_back(i);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const ReachStep& st = steps[*it];
        int caller_file = st.parent >= 0 ? steps[st.parent].body.file : f;
        out << "    <- " << st.call << " at " << a.files[caller_file].source.display << ":" << st.line
            << (st.assumed && (st.parent < 0 || !steps[st.parent].assumed) ? " (unresolved: assumed)" : "") << "\n";
      }
      ++bodies;
      assumed += steps[s].assumed;
    }
  }
  out << modules << " module(s) run " << bodies << " function bod" << (bodies == 1 ? "y" : "ies")
      << " at import (" << assumed << " assumed)\n";
}

}  // namespace cyclefix
