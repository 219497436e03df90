#include "cycle_report.hpp"

#include <algorithm>
#include <set>

#include "simulator.hpp"

namespace cyclefix {

namespace {


Hop make_hop(const Analysis& a, const ImportEdge& e) {
  Hop h;
  h.from = e.from;
  h.to = e.to;
  const StatementRef& s = e.statements.front();
  const FileAnalysis& fa = a.files[s.file];
  h.file = fa.source.display;
  h.line = s.line;
  h.statement = one_line_statement(fa.facts.imports[s.import].text);
  return h;
}

}  // namespace

std::string display_name(const ModuleInfo& m) {
  return m.is_package && !m.is_namespace ? m.name + ".__init__" : m.name;
}

std::string one_line_statement(std::string_view s) {
  auto nl = s.find('\n');
  std::string out(nl == std::string_view::npos ? s : s.substr(0, nl));
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\\')) out.pop_back();
  if (nl != std::string_view::npos) out += " ...";
  return out;
}

std::string loop_text(const Analysis& a, const std::vector<ModuleId>& loop) {
  std::string out;
  for (std::size_t i = 0; i < loop.size(); ++i) {
    if (i) out += " -> ";
    out += display_name(a.modules[loop[i]]);
  }
  return out;
}

int component_of(const CycleReport& r, ModuleId m) {
  for (std::size_t k = 0; k < r.components.size(); ++k) {
    const auto& mods = r.components[k].modules;
    if (std::binary_search(mods.begin(), mods.end(), m)) return static_cast<int>(k);
  }
  return -1;
}

std::vector<int> component_per_module(const Analysis& a, const CycleReport& r) {
  std::vector<int> comp(a.modules.size(), -1);
  for (std::size_t k = 0; k < r.components.size(); ++k)
    for (ModuleId m : r.components[k].modules) comp[m] = static_cast<int>(k);
  return comp;
}

CycleReport build_cycle_report(const Analysis& a, std::size_t max_loops) {
  CycleReport r;
  r.max_loops = max_loops;
  for (auto& comp : cyclic_components(a.graph)) {
    ReportedComponent rc;
    ComponentLoops cl = component_loops(a.graph, comp, a.modules.modules(), max_loops);
    rc.modules = comp;
    rc.edges = cl.edges_in_component;
    rc.capped = cl.capped;
    rc.edges_covered = cl.edges_covered;
    for (const Loop& l : cl.loops) {
      ReportedLoop rl;
      rl.modules = l.modules;
      for (std::size_t e : l.edges) rl.hops.push_back(make_hop(a, a.graph.edges()[e]));
      rc.loops.push_back(std::move(rl));
    }
    r.components.push_back(std::move(rc));
  }
  return r;
}

void attach_failures(CycleReport& r, const SimulationResult& normal, const SimulationResult& bare) {
  auto count = [&](const ReportedComponent& c, const SimulationResult& sim) {
    long n = 0;
    for (const auto& e : sim.entries) {
      if (!e.fails || !e.circular || e.chain.empty()) continue;
      ModuleId where = e.chain.back().module;
      if (std::binary_search(c.modules.begin(), c.modules.end(), where)) ++n;
    }
    return n;
  };
  for (auto& c : r.components) {
    c.failing_normal = count(c, normal);
    c.failing_bare = count(c, bare);
  }
}

void print_diagnostics(std::ostream& out, const Analysis& a) {
  for (const auto& d : a.diagnostics) {
    out << format_diagnostic(d) << "\n";
  }
}

void print_cycles(std::ostream& out, const Analysis& a, const CycleReport& r) {
  std::size_t in_cycles = 0;
  for (const auto& c : r.components) in_cycles += c.modules.size();
  out << "cyclefix: " << a.files.size() << " files, " << a.modules.size() << " modules, "
      << a.graph.edges().size() << " import-time edges: ";
  if (r.components.empty()) {
    out << "no import cycles\n";
    return;
  }
  out << r.components.size() << (r.components.size() == 1 ? " import cycle" : " import cycles")
      << " (" << in_cycles << " modules in cycles)\n";
  for (std::size_t i = 0; i < r.components.size(); ++i) {
    const auto& c = r.components[i];
    out << "\nimport cycle " << (i + 1) << ": " << c.modules.size() << " modules, " << c.edges
        << " edges, " << c.loops.size() << (c.loops.size() == 1 ? " loop" : " loops");
    if (c.failing_normal >= 0) {
      if (c.failing_normal == 0 && c.failing_bare == 0) {
        out << "; harmless: no entry point fails";
      } else {
        out << "; entry points failing: " << c.failing_normal << " normal, " << c.failing_bare << " bare";
      }
    }
    out << "\n";
    for (const auto& l : c.loops) {
      out << "  " << loop_text(a, l.modules) << "\n";
      for (const auto& h : l.hops) {
        out << "    " << h.file << ":" << h.line << ": " << h.statement << "\n";
      }
    }
    if (c.capped) {
      out << "  (loops capped at " << r.max_loops << "; they cover " << c.edges_covered << " of "
          << c.edges << " edges; raise --max-loops to see more)\n";
    }
  }
}

nlohmann::json analysis_json(const Analysis& a, const CycleReport& r) {
  using nlohmann::json;
  json j;
  j["version"] = CYCLEFIX_VERSION;
  j["files"] = a.files.size();
  j["lines"] = a.total_lines;
  j["modules"] = a.modules.size();
  j["edges"] = a.graph.edges().size();

  json errors = json::array();
  for (const auto& d : a.diagnostics) {
    errors.push_back({{"file", d.file}, {"line", d.line}, {"message", d.message},
                      {"severity", d.severity == Diagnostic::Severity::Error ? "error" : "warning"}});
  }
  j["parse_errors"] = errors;

  auto name = [&](ModuleId m) { return a.modules[m].name; };
  json sccs = json::array();
  json cycles = json::array();
  for (const auto& c : r.components) {
    json mods = json::array();
    for (ModuleId m : c.modules) mods.push_back(name(m));
    json failing = nullptr;
    if (c.failing_normal >= 0) failing = {{"normal", c.failing_normal}, {"bare", c.failing_bare}};
    sccs.push_back({{"modules", mods},
                    {"failing_entry_points", failing},
                    {"edges", c.edges},
                    {"loops", c.loops.size()},
                    {"loops_capped", c.capped},
                    {"edges_covered", c.edges_covered}});
    for (const auto& l : c.loops) {
      json loop = json::array();
      for (ModuleId m : l.modules) loop.push_back(name(m));
      json hops = json::array();
      for (const auto& h : l.hops) {
        hops.push_back({{"from", name(h.from)}, {"to", name(h.to)}, {"file", h.file},
                        {"line", h.line}, {"statement", h.statement}});
      }
      cycles.push_back({{"loop", loop}, {"display", loop_text(a, l.modules)}, {"hops", hops}});
    }
  }
  j["sccs"] = sccs;
  j["cycles"] = cycles;

  json dyn = json::array();
  for (const auto& fa : a.files) {
    for (const auto& d : fa.facts.dynamic_imports) {
      dyn.push_back({{"file", fa.source.display}, {"line", d.line}, {"call", d.call},
                     {"module", d.argument.empty() ? json(nullptr) : json(d.argument)}});
    }
  }
  j["dynamic_imports"] = dyn;

  json mods = json::array();
  for (const auto& m : a.modules.modules()) {
    mods.push_back({{"name", m.name}, {"file", m.display.empty() ? json(nullptr) : json(m.display)},
                    {"package", m.is_package}, {"namespace", m.is_namespace}});
  }
  json edges = json::array();
  for (const auto& e : a.graph.edges()) {
    json stmts = json::array();
    for (const auto& s : e.statements) {
      stmts.push_back({{"file", a.files[s.file].source.display}, {"line", s.line},
                       {"reason", to_string(s.reason)},
                       {"statement", one_line_statement(a.files[s.file].facts.imports[s.import].text)}});
    }
    edges.push_back({{"from", name(e.from)}, {"to", name(e.to)}, {"statements", stmts}});
  }
  j["graph"] = {{"modules", mods}, {"edges", edges}};
  return j;
}

void write_dot(std::ostream& out, const Analysis& a, const CycleReport& r) {
  std::set<std::pair<ModuleId, ModuleId>> cyclic;
  std::vector<int> comp_of(a.modules.size(), -1);
  for (std::size_t i = 0; i < r.components.size(); ++i)
    for (ModuleId m : r.components[i].modules) comp_of[m] = static_cast<int>(i);
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q + "\"";
  };
  out << "digraph imports {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (ModuleId m = 0; m < a.modules.size(); ++m) {
    const auto& info = a.modules[m];
    out << "  " << quote(info.name);
    std::vector<std::string> attrs;
    if (info.is_package) attrs.push_back(info.is_namespace ? "style=dashed" : "shape=folder");
    if (comp_of[m] >= 0) attrs.push_back("color=red");
    if (!attrs.empty()) {
      out << " [";
      for (std::size_t i = 0; i < attrs.size(); ++i) out << (i ? ", " : "") << attrs[i];
      out << "]";
    }
    out << ";\n";
  }
  for (const auto& e : a.graph.edges()) {
    bool in_cycle = comp_of[e.from] >= 0 && comp_of[e.from] == comp_of[e.to];
    out << "  " << quote(a.modules[e.from].name) << " -> " << quote(a.modules[e.to].name);
    out << " [label=" << quote(a.files[e.statements.front().file].source.display + ":" +
                               std::to_string(e.statements.front().line));
    if (in_cycle) out << ", color=red";
    out << "];\n";
  }
  out << "}\n";
}

}  // namespace cyclefix
