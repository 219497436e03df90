#include "baseline.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace cyclefix {

namespace fs = std::filesystem;

namespace {

// The edges inside each component, with every statement's key.
struct ComponentEdges {
  std::vector<std::vector<const ImportEdge*>> edges;  // per component
};

ComponentEdges edges_inside(const Analysis& a, const CycleReport& r) {
  std::vector<int> comp = component_per_module(a, r);
  ComponentEdges out;
  out.edges.resize(r.components.size());
  for (const ImportEdge& e : a.graph.edges())
    if (comp[e.from] >= 0 && comp[e.from] == comp[e.to]) out.edges[comp[e.from]].push_back(&e);
  return out;
}

BaselineEdge key_of(const Analysis& a, const ImportEdge& e, const StatementRef& s) {
  return {a.modules[e.from].name, a.modules[e.to].name,
          normalize_statement(a.files[s.file].facts.imports[s.import].text)};
}

}  // namespace

std::string normalize_statement(std::string_view text) {
  std::string out;
  bool space = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {  // a comment runs to the end of its line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\\' || c == '(') {
      space = true;
      continue;
    }
    if (c == ')') {
      if (!out.empty() && out.back() == ',') out.pop_back();
      continue;
    }
    if (c == ',') {
      out += c;
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  if (!out.empty() && out.back() == ',') out.pop_back();
  return out;
}

Baseline make_baseline(const Analysis& a, const CycleReport& r) {
  Baseline b;
  ComponentEdges inside = edges_inside(a, r);
  for (std::size_t k = 0; k < r.components.size(); ++k) {
    BaselineCycle c;
    for (ModuleId m : r.components[k].modules) c.modules.push_back(a.modules[m].name);
    std::sort(c.modules.begin(), c.modules.end());
    std::set<BaselineEdge> edges;
    for (const ImportEdge* e : inside.edges[k])
      for (const StatementRef& s : e->statements) edges.insert(key_of(a, *e, s));
    c.edges.assign(edges.begin(), edges.end());
    b.cycles.push_back(std::move(c));
  }
  std::sort(b.cycles.begin(), b.cycles.end(),
            [](const BaselineCycle& x, const BaselineCycle& y) { return x.modules < y.modules; });
  return b;
}

nlohmann::json baseline_json(const Baseline& b) {
  nlohmann::json cycles = nlohmann::json::array();
  for (const auto& c : b.cycles) {
    nlohmann::json edges = nlohmann::json::array();
    for (const auto& e : c.edges) edges.push_back({{"from", e.from}, {"statement", e.statement}, {"to", e.to}});
    cycles.push_back({{"edges", edges}, {"modules", c.modules}});
  }
  return {{"cyclefix_baseline", kBaselineVersion}, {"cycles", cycles}};
}

bool baseline_from_json(const nlohmann::json& j, Baseline* b, std::string* err) {
  if (!j.is_object() || !j.contains("cyclefix_baseline")) {
    *err = "not a cyclefix baseline (no \"cyclefix_baseline\" version)";
    return false;
  }
  if (j["cyclefix_baseline"] != kBaselineVersion) {
    *err = "baseline version " + j["cyclefix_baseline"].dump() + " is not supported (this cyclefix reads version " +
           std::to_string(kBaselineVersion) + ")";
    return false;
  }
  b->cycles.clear();
  try {
    for (const auto& c : j.at("cycles")) {
      BaselineCycle bc;
      for (const auto& m : c.at("modules")) bc.modules.push_back(m.get<std::string>());
      for (const auto& e : c.at("edges"))
        bc.edges.push_back({e.at("from").get<std::string>(), e.at("to").get<std::string>(),
                            normalize_statement(e.at("statement").get<std::string>())});
      std::sort(bc.modules.begin(), bc.modules.end());
      std::sort(bc.edges.begin(), bc.edges.end());
      b->cycles.push_back(std::move(bc));
    }
  } catch (const nlohmann::json::exception& e) {
    *err = std::string("malformed baseline: ") + e.what();
    return false;
  }
  return true;
}

bool read_baseline(const fs::path& file, Baseline* b, std::string* err) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *err = "cannot read baseline " + file.string();
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) {
    *err = file.string() + ": baseline is not valid JSON";
    return false;
  }
  std::string why;
  if (!baseline_from_json(j, b, &why)) {
    *err = file.string() + ": " + why;
    return false;
  }
  return true;
}

bool write_baseline(const fs::path& file, const Baseline& b, std::string* err) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << baseline_json(b).dump(2) << "\n";
  out.close();
  if (!out) {
    *err = "cannot write baseline " + file.string();
    return false;
  }
  return true;
}

std::size_t BaselineComparison::new_count() const {
  return static_cast<std::size_t>(std::count(is_new.begin(), is_new.end(), true));
}

BaselineComparison compare_with_baseline(const Analysis& a, const CycleReport& r, const Baseline& b) {
  BaselineComparison c;
  std::set<BaselineEdge> known;
  for (const auto& bc : b.cycles) known.insert(bc.edges.begin(), bc.edges.end());
  std::set<BaselineEdge> today;  // every statement key on a cycle now
  ComponentEdges inside = edges_inside(a, r);
  c.is_new.assign(r.components.size(), false);
  c.unknown_edges.resize(r.components.size());
  for (std::size_t k = 0; k < r.components.size(); ++k) {
    for (const ImportEdge* e : inside.edges[k]) {
      bool edge_known = false;
      for (const StatementRef& s : e->statements) {
        BaselineEdge key = key_of(a, *e, s);
        edge_known = edge_known || known.count(key);
        today.insert(std::move(key));
      }
      if (edge_known) continue;
      const StatementRef& s = e->statements.front();
      c.unknown_edges[k].push_back({e->from, e->to, a.files[s.file].source.display, s.line,
                                    one_line_statement(a.files[s.file].facts.imports[s.import].text)});
    }
    std::sort(c.unknown_edges[k].begin(), c.unknown_edges[k].end(), [](const UnknownEdge& x, const UnknownEdge& y) {
      return std::tie(x.file, x.line, x.from, x.to) < std::tie(y.file, y.line, y.from, y.to);
    });
    c.is_new[k] = !c.unknown_edges[k].empty();
  }
  for (const auto& bc : b.cycles)
    if (std::none_of(bc.edges.begin(), bc.edges.end(), [&](const BaselineEdge& e) { return today.count(e); }))
      c.gone.push_back(bc);
  return c;
}

void print_baseline_comparison(std::ostream& out, const Analysis& a, const CycleReport& r,
                               const BaselineComparison& c) {
  std::size_t fresh = c.new_count();
  out << "\nbaseline " << c.file << ": " << (r.components.size() - fresh) << " known import cycle"
      << (r.components.size() - fresh == 1 ? "" : "s") << ", " << fresh << " new";
  if (!c.gone.empty())
    out << "; " << c.gone.size() << " baseline cycle" << (c.gone.size() == 1 ? "" : "s")
        << " no longer present (--write-baseline to drop)";
  out << "\n";
  for (std::size_t k = 0; k < r.components.size(); ++k) {
    if (!c.is_new[k]) continue;
    out << "new: import cycle " << (k + 1) << " (";
    for (std::size_t i = 0; i < r.components[k].modules.size(); ++i)
      out << (i ? ", " : "") << a.modules[r.components[k].modules[i]].name;
    out << "): edges not in the baseline:\n";
    for (const auto& e : c.unknown_edges[k])
      out << "    " << e.file << ":" << e.line << ": " << e.statement << "  (" << a.modules[e.from].name << " -> "
          << a.modules[e.to].name << ")\n";
  }
}

nlohmann::json baseline_comparison_json(const Analysis& a, const CycleReport& r, const BaselineComparison& c) {
  using nlohmann::json;
  json fresh = json::array(), known = json::array(), gone = json::array();
  for (std::size_t k = 0; k < r.components.size(); ++k) {
    json modules = json::array();
    for (ModuleId m : r.components[k].modules) modules.push_back(a.modules[m].name);
    if (!c.is_new[k]) {
      known.push_back(modules);
      continue;
    }
    json edges = json::array();
    for (const auto& e : c.unknown_edges[k])
      edges.push_back({{"from", a.modules[e.from].name}, {"to", a.modules[e.to].name}, {"file", e.file},
                       {"line", e.line}, {"statement", e.statement}});
    fresh.push_back({{"modules", modules}, {"unknown_edges", edges}});
  }
  for (const auto& g : c.gone) gone.push_back(g.modules);
  return {{"file", c.file}, {"known", known}, {"new", fresh}, {"gone", gone}};
}

}  // namespace cyclefix
