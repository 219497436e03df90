#include "sarif.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "baseline.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "simulator.hpp"

namespace cyclefix {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json rule(const char* id, const char* name, const char* short_text, const char* full_text, const char* level,
          const char* help) {
  return {{"id", id},
          {"name", name},
          {"shortDescription", {{"text", short_text}}},
          {"fullDescription", {{"text", full_text}}},
          {"defaultConfiguration", {{"level", level}}},
          {"help", {{"text", help}}}};
}

// Locations in the files of one analysis, by display path.
class Locator {
 public:
  Locator(const Analysis& a, const fs::path& source_root)
      : a_(a), root_(fs::absolute(source_root).lexically_normal()) {
    for (std::size_t f = 0; f < a.files.size(); ++f) by_display_.emplace(a.files[f].source.display, static_cast<int>(f));
  }

  std::string root_uri() const {
    std::string r = root_.generic_string();
    if (r.empty() || r.back() != '/') r += '/';
    return "file://" + uri_encode_path(r);
  }

  json artifact(std::string_view display) const {
    auto it = by_display_.find(display);
    fs::path p = it == by_display_.end() ? fs::path(display) : fs::path(a_.files[it->second].source.path);
    fs::path abs = fs::absolute(p).lexically_normal();
    fs::path rel = abs.lexically_relative(root_);
    if (!rel.empty() && *rel.begin() != "..")
      return {{"uri", uri_encode_path(rel.generic_string())}, {"uriBaseId", "%SRCROOT%"}};
    return {{"uri", "file://" + uri_encode_path(abs.generic_string())}};
  }

  // The first line of the import statement at `line` of the file, or "".
  std::string statement_at(std::string_view display, int line) const {
    auto it = by_display_.find(display);
    if (it == by_display_.end()) return {};
    for (const auto& st : a_.files[it->second].facts.imports)
      if (st.line == line) return one_line_statement(st.text);
    return {};
  }

  json physical(std::string_view display, int line, const std::string& snippet) const {
    json p = {{"artifactLocation", artifact(display)}};
    if (line > 0) {
      p["region"] = {{"startLine", line}};
      // The first line of the statement, without the report's " ..." marker.
      std::string text = snippet;
      if (text.size() > 4 && text.compare(text.size() - 4, 4, " ...") == 0) text.resize(text.size() - 4);
      if (!text.empty()) p["region"]["snippet"] = {{"text", text}};
    }
    return p;
  }

  json location(std::string_view display, int line, const std::string& snippet,
                const std::string& message = {}) const {
    json l = {{"physicalLocation", physical(display, line, snippet)}};
    if (!message.empty()) l["message"] = {{"text", message}};
    return l;
  }

 private:
  const Analysis& a_;
  fs::path root_;
  // Looked up by string_view (chain hops hold views): no string built per lookup.
  struct ViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::unordered_map<std::string, int, ViewHash, std::equal_to<>> by_display_;
};

void set_baseline_state(json& result, const SarifInputs& in, int component) {
  if (!in.baseline || component < 0 || static_cast<std::size_t>(component) >= in.baseline->is_new.size()) return;
  result["baselineState"] = in.baseline->is_new[component] ? "new" : "unchanged";
}

}  // namespace

std::string uri_encode_path(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '~' || c == '/';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

json sarif_log(const Analysis& a, const CycleReport& r, const SarifInputs& in) {
  Locator loc(a, in.source_root);
  json rules = json::array();
  rules.push_back(rule("CF001", "import-cycle", "Import cycle",
                       "Modules whose module-level code imports each other, directly or through other modules. "
                       "Whether importing them fails depends on which one is imported first.",
                       "warning",
                       "Defer one import of the loop: move it into the functions that use it, or under "
                       "`if TYPE_CHECKING:` when only annotations use it. `cyclefix` prints the patch."));
  rules.push_back(rule("CF002", "circular-import-failure", "Circular import failure",
                       "Importing this module first in a fresh interpreter fails with a circular-import error "
                       "(\"partially initialized module\"), as predicted by cyclefix's import simulator.",
                       "error",
                       "Break the import cycle on the chain shown (`cyclefix --only-failing` cuts only what makes "
                       "some entry point fail)."));
  json results = json::array();

  // CF001: one result per cyclic component, at its first loop's first hop.
  for (std::size_t k = 0; k < r.components.size(); ++k) {
    const ReportedComponent& c = r.components[k];
    if (c.loops.empty() || c.loops.front().hops.empty()) continue;
    const Hop& anchor = c.loops.front().hops.front();
    std::string text = "Import cycle: " + loop_text(a, c.loops.front().modules) + " (" +
                       std::to_string(c.modules.size()) + " modules, " + std::to_string(c.loops.size()) +
                       (c.loops.size() == 1 ? " loop" : " loops");
    std::string level = "warning";
    if (c.failing_normal >= 0) {
      if (c.failing_normal == 0 && c.failing_bare == 0) {
        text += "; harmless: no entry point fails";
        level = "note";
      } else {
        text += "; entry points failing: " + std::to_string(c.failing_normal) + " normal, " +
                std::to_string(c.failing_bare) + " bare";
      }
    }
    text += ").";
    json related = json::array();
    std::set<std::pair<std::string, int>> seen = {{anchor.file, anchor.line}};
    for (const auto& l : c.loops)
      for (const auto& h : l.hops) {
        if (!seen.insert({h.file, h.line}).second) continue;
        json rl = loc.location(h.file, h.line, h.statement,
                               display_name(a.modules[h.from]) + " -> " + display_name(a.modules[h.to]) + ": " +
                                   h.statement);
        rl["id"] = related.size() + 1;
        related.push_back(std::move(rl));
      }
    json modules = json::array();
    std::string key;
    for (ModuleId m : c.modules) {
      modules.push_back(a.modules[m].name);
      key += (key.empty() ? "" : ",") + a.modules[m].name;
    }
    json res = {{"ruleId", "CF001"},
                {"ruleIndex", 0},
                {"level", level},
                {"message", {{"text", text}}},
                {"locations", json::array({loc.location(anchor.file, anchor.line, anchor.statement)})},
                {"relatedLocations", related},
                {"partialFingerprints", {{"cyclefixCycle/v1", key}}},
                {"properties", {{"modules", modules}}}};
    set_baseline_state(res, in, static_cast<int>(k));
    results.push_back(std::move(res));
  }

  // CF002: one result per failing entry point, both entry modes merged.
  std::map<ModuleId, std::vector<std::pair<std::string, const EntryPrediction*>>> failing;  // normal first
  for (const SimulationResult* sim : {in.normal, in.bare}) {
    if (!sim) continue;
    for (const auto& e : sim->entries)
      if (e.fails && e.circular && !e.chain.empty()) failing[e.module].push_back({std::string(to_string(sim->mode)), &e});
  }
  for (const auto& [module, entries] : failing) {
    std::vector<std::string> modes;
    for (const auto& [mode, p] : entries) modes.push_back(mode);
    const EntryPrediction& e = *entries.front().second;
    const ChainHop& fail = e.chain.back();
    const std::string& fail_file = a.modules[fail.module].display;
    std::string mode_text = modes.size() == 2 ? "normal and bare entry" : modes.front() + " entry";
    std::string text = "Importing " + a.modules[module].name + " first fails (" + mode_text + "): " + e.error + ": " +
                       e.message;
    json related = json::array();
    for (std::size_t h = 0; h + 1 < e.chain.size(); ++h) {
      const ChainHop& hop = e.chain[h];
      const std::string& file = a.modules[hop.module].display;
      json rl = loc.location(file, hop.line, loc.statement_at(file, hop.line),
                             "step " + std::to_string(h + 1) + ": " + a.modules[hop.module].name + " imports " +
                                 a.modules[e.chain[h + 1].module].name);
      rl["id"] = related.size() + 1;
      related.push_back(std::move(rl));
    }
    json flows = json::array();
    for (std::size_t m = 0; m < entries.size(); ++m) {
      json steps = json::array();
      for (const ChainHop& hop : entries[m].second->chain) {
        const std::string& file = a.modules[hop.module].display;
        steps.push_back(
            {{"location", loc.location(file, hop.line, loc.statement_at(file, hop.line), a.modules[hop.module].name)}});
      }
      flows.push_back({{"message", {{"text", modes[m] + " entry: import " + a.modules[module].name}}},
                       {"threadFlows", json::array({{{"locations", steps}}})}});
    }
    bool uncertain = std::all_of(entries.begin(), entries.end(), [](const auto& p) { return p.second->uncertain; });
    json res = {{"ruleId", "CF002"},
                {"ruleIndex", 1},
                {"level", uncertain ? "warning" : "error"},
                {"message", {{"text", text}}},
                {"locations", json::array({loc.location(fail_file, fail.line, loc.statement_at(fail_file, fail.line))})},
                {"relatedLocations", related},
                {"codeFlows", flows},
                {"partialFingerprints", {{"cyclefixFailure/v1", a.modules[module].name}}},
                {"properties", {{"entryModes", modes}, {"uncertain", uncertain}}}};
    set_baseline_state(res, in, component_of(r, fail.module));
    results.push_back(std::move(res));
  }

  // CF003: one result per cut the main command makes, at the statement it defers.
  if (in.plan) {
    rules.push_back(rule("CF003", "import-to-defer", "Import to defer",
                         "A module-level import whose deferral (into the functions that use it, or under "
                         "`if TYPE_CHECKING:`) is part of cyclefix's minimum-cost plan to break the import cycles.",
                         "warning", "`cyclefix --apply` makes the change; `cyclefix --explain` says why this import."));
    for (int i : in.cuts) {
      const CandidateStatement& c = in.plan->candidates[i];
      const FileAnalysis& fa = a.files[c.file];
      const ImportStatement& st = fa.facts.imports[c.import];
      const std::vector<std::string> loops = loops_broken_by(a, r, c);
      std::string text = cut_summary(c, one_line_statement(st.text), loops) + ".";
      json res = {{"ruleId", "CF003"},
                  {"ruleIndex", 2},
                  {"level", "warning"},
                  {"message", {{"text", text}}},
                  {"locations", json::array({loc.location(fa.source.display, st.line, one_line_statement(st.text))})},
                  {"partialFingerprints", {{"cyclefixCut/v1", fa.source.display + "\n" + st.text}}},
                  {"properties", {{"movedTo", c.functions}, {"typeChecking", c.type_checking}, {"breaks", loops}}}};
      set_baseline_state(res, in, component_of(r, fa.module));
      results.push_back(std::move(res));
    }
  }

  json driver = {{"name", "cyclefix"},
                 {"version", CYCLEFIX_VERSION},
                 {"semanticVersion", CYCLEFIX_VERSION},
                 {"rules", rules}};
  json run = {{"tool", {{"driver", driver}}},
              {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", loc.root_uri()}}}}},
              {"results", results}};
  return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

}  // namespace cyclefix
