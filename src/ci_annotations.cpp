#include "ci_annotations.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "facts_cache.hpp"
#include "strings.hpp"

namespace cyclefix {

namespace {

CiFinding failing_entry(const Analysis& a, ModuleId module, const std::vector<const EntryPrediction*>& entries,
                        const std::vector<std::string>& modes) {
  const EntryPrediction& e = *entries.front();
  const ChainHop& fail = e.chain.back();
  bool uncertain = true;
  for (const EntryPrediction* p : entries) uncertain = uncertain && p->uncertain;
  CiFinding f;
  f.check = "cyclefix/circular-import";
  f.failure = true;
  f.certain_failure = !uncertain;
  f.file = a.modules[fail.module].display;
  f.line = fail.line;
  const std::string& name = a.modules[module].name;
  f.title = "circular import: importing " + name + " first fails";
  f.summary = "Importing " + name + " first fails (" + join(modes, " and ") + " entry" +
              (uncertain ? ", uncertain" : "") + "): " + e.error + ": " + e.message;
  f.details = "import chain:";
  for (const ChainHop& hop : e.chain)
    f.details += "\n  " + a.modules[hop.module].name + " (" + a.modules[hop.module].display + ":" + std::to_string(hop.line) + ")";
  f.identity = name;
  return f;
}

CiFinding cut_finding(const Analysis& a, const CycleReport& r, const CandidateStatement& c) {
  const FileAnalysis& fa = a.files[c.file];
  const ImportStatement& st = fa.facts.imports[c.import];
  const std::vector<std::string> loops = loops_broken_by(a, r, c);
  CiFinding f;
  f.check = "cyclefix/import-to-defer";
  f.file = fa.source.display;
  f.line = st.line;
  f.title = c.strategy == Strategy::Defer ? "import cycle: defer this import" : "import cycle: rewrite this import";
  std::string where;
  if (!c.functions.empty()) where = "into " + join(c.functions, ", ");
  if (!c.type_checking.empty())
    where += (where.empty() ? "" : "; ") + std::string("under TYPE_CHECKING: ") + join(c.type_checking, ", ");
  f.summary = cut_summary(c, one_line_statement(st.text), loops, where) + ". `cyclefix --apply` makes the change.";
  if (loops.size() > 1) f.details = "loops broken:\n  " + join(loops, "\n  ");
  f.identity = fa.source.display + "\n" + st.text;
  return f;
}

}  // namespace

std::vector<CiFinding> ci_findings(const Analysis& a, const CycleReport& r, const CutPlan& plan,
                                   const std::vector<int>& cuts, const BothModes& before) {
  std::vector<CiFinding> out;
  // One finding per failing module, both entry modes merged (normal first), by module name.
  std::map<std::string, std::pair<ModuleId, std::vector<const EntryPrediction*>>> failing;
  std::map<std::string, std::vector<std::string>> modes;
  for (const SimulationResult* sim : {&before.normal, &before.bare})
    for (const EntryPrediction& e : sim->entries) {
      if (!e.fails || !e.circular || e.chain.empty()) continue;
      auto& slot = failing[a.modules[e.module].name];
      slot.first = e.module;
      slot.second.push_back(&e);
      modes[a.modules[e.module].name].emplace_back(to_string(sim->mode));
    }
  for (const auto& [name, entry] : failing) out.push_back(failing_entry(a, entry.first, entry.second, modes[name]));
  std::vector<int> sorted = cuts;
  std::sort(sorted.begin(), sorted.end());  // candidates are sorted by file, line
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (int i : sorted) out.push_back(cut_finding(a, r, plan.candidates[i]));
  return out;
}

namespace {

std::string escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string github_escape_data(std::string_view s) { return escape(s, false); }
std::string github_escape_property(std::string_view s) { return escape(s, true); }

std::string github_workflow_commands(const std::vector<CiFinding>& findings) {
  std::string out;
  for (const CiFinding& f : findings) {
    out += f.certain_failure ? "::error " : "::warning ";
    out += "file=" + github_escape_property(f.file);
    if (f.line > 0) out += ",line=" + std::to_string(f.line);
    out += ",title=" + github_escape_property(f.title);
    out += "::" + github_escape_data(f.details.empty() ? f.summary : f.summary + "\n" + f.details) + "\n";
  }
  return out;
}

nlohmann::json gitlab_code_quality(const std::vector<CiFinding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, int> seen;  // fingerprint key -> times used
  for (const CiFinding& f : findings) {
    std::string key = f.check + "\n" + f.identity;
    int n = seen[key]++;
    if (n > 0) key += "\n#" + std::to_string(n);
    nlohmann::json issue = {
        {"type", "issue"},
        {"check_name", f.check},
        {"description", f.summary},
        {"categories", nlohmann::json::array({"Bug Risk"})},
        {"fingerprint", hash_bytes(key).hex()},
        {"severity", f.certain_failure ? "critical" : f.failure ? "major" : "minor"},
        {"location", {{"path", f.file}, {"lines", {{"begin", f.line > 0 ? f.line : 1}}}}}};
    if (!f.details.empty()) issue["content"] = {{"body", f.details}};
    out.push_back(std::move(issue));
  }
  return out;
}

}  // namespace cyclefix
