#include "html_report.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "unified_diff.hpp"

extern char** environ;

namespace cyclefix {

namespace {

// Colours the page's CSS uses too; the self-check in the page compares the cut
// edges' computed stroke with kCutColour.
constexpr const char* kCutColour = "#d62728";
constexpr const char* kPinnedColour = "#ff7f0e";

std::string first_line(std::string_view s) {
  auto nl = s.find('\n');
  std::string out(nl == std::string_view::npos ? s : s.substr(0, nl));
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\\')) out.pop_back();
  if (nl != std::string_view::npos) out += " ...";
  return out;
}

// At most `n` bytes, cut on a UTF-8 character boundary.
std::string clip(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

// A DOT quoted string: quotes and backslashes escaped (so that no `\N`-style
// escape of Graphviz applies), newlines as `\n`.
std::string dot_quote(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += c;
    } else if (c == '\n') {
      q += "\\n";
    } else if (c != '\r') {
      q += c;
    }
  }
  return q + "\"";
}

enum class EdgeState { Plain, Cut, PartialCut, Pinned };

// What the plan does to the statements that make each edge.
struct PlanLookup {
  std::map<std::pair<int, int>, int> candidate;  // (file, import) -> index into plan.candidates
  std::set<int> cuts;

  PlanLookup(const CutPlan& plan) : cuts(plan.cuts.begin(), plan.cuts.end()) {
    for (std::size_t i = 0; i < plan.candidates.size(); ++i)
      candidate[{plan.candidates[i].file, plan.candidates[i].import}] = static_cast<int>(i);
  }

  EdgeState state(const CutPlan& plan, const ImportEdge& e) const {
    std::size_t cut = 0;
    bool pinned = false;
    for (const StatementRef& s : e.statements) {
      auto it = candidate.find({s.file, s.import});
      if (it == candidate.end()) continue;
      if (cuts.count(it->second)) ++cut;
      else if (!plan.candidates[it->second].cuttable) pinned = true;
    }
    if (cut == e.statements.size()) return EdgeState::Cut;
    if (pinned) return EdgeState::Pinned;
    return cut ? EdgeState::PartialCut : EdgeState::Plain;
  }
};

std::size_t edge_index(const Analysis& a, const ImportEdge* e) {
  return static_cast<std::size_t>(e - a.graph.edges().data());
}

}  // namespace

ComponentDrawing component_dot(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                               std::size_t component, const HtmlReportOptions& options) {
  const ReportedComponent& comp = cycles.components.at(component);
  PlanLookup lookup(plan);
  ComponentDrawing d;
  std::set<ModuleId> members(comp.modules.begin(), comp.modules.end());
  std::set<ModuleId> drawn;
  std::set<std::size_t> edges;  // edge ids

  auto loop_edges = [&](const ReportedLoop& l) {
    std::vector<std::size_t> out;
    for (const Hop& h : l.hops)
      if (const ImportEdge* e = a.graph.find(h.from, h.to)) out.push_back(edge_index(a, e));
    return out;
  };

  if (comp.modules.size() <= options.max_drawn_modules) {
    drawn = members;
    for (ModuleId m : comp.modules)
      for (std::size_t e : a.graph.out_edges(m))
        if (members.count(a.graph.edges()[e].to)) edges.insert(e);
  } else {
    // The union of the shortest loops, those through a cut edge first, while it fits.
    d.reduced = true;
    std::vector<const ReportedLoop*> order;
    for (int pass = 0; pass < 2; ++pass) {
      for (const ReportedLoop& l : comp.loops) {
        bool through_cut = false;
        for (std::size_t e : loop_edges(l)) {
          EdgeState s = lookup.state(plan, a.graph.edges()[e]);
          through_cut |= s == EdgeState::Cut || s == EdgeState::PartialCut;
        }
        if (through_cut == (pass == 0)) order.push_back(&l);
      }
    }
    for (const ReportedLoop* l : order) {
      std::set<ModuleId> grown = drawn;
      grown.insert(l->modules.begin(), l->modules.end());
      if (!drawn.empty() && grown.size() > options.max_drawn_modules) continue;
      drawn = std::move(grown);
      for (std::size_t e : loop_edges(*l)) edges.insert(e);
      ++d.loops_drawn;
    }
  }
  d.modules_drawn = drawn.size();
  d.edges_drawn = edges.size();

  const std::string prefix = "c" + std::to_string(component + 1);
  std::ostringstream out;
  out << "digraph " << dot_quote(prefix) << " {\n"
      << "  id=" << dot_quote(prefix + "-graph") << "; bgcolor=\"transparent\"; nodesep=0.3; ranksep=0.45;\n"
      // Loops through a hub make wide, shallow drawings: left to right they fit the page better.
      << "  rankdir=" << (d.reduced ? "LR" : "TB") << ";\n"
      << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#444444\", "
         "fontname=\"Helvetica\", fontsize=11, height=0.3, class=\"module\"];\n"
      << "  edge [color=\"#6b7280\", arrowsize=0.7];\n";
  for (ModuleId m : drawn) {
    const ModuleInfo& info = a.modules[m];
    out << "  " << dot_quote(info.name) << " [id=" << dot_quote(prefix + "-m" + std::to_string(m))
        << ", label=" << dot_quote(display_name(info)) << ", tooltip=" << dot_quote(info.display);
    if (info.is_package)
      out << ", shape=folder, style=filled, fillcolor=\"#dbeafe\", color=\"#1d4ed8\", class=\"module package\"";
    out << "];\n";
  }
  for (std::size_t e : edges) {
    const ImportEdge& edge = a.graph.edges()[e];
    std::string tip;
    for (const StatementRef& s : edge.statements) {
      const FileAnalysis& fa = a.files[s.file];
      tip += (tip.empty() ? "" : "\n") + fa.source.display + ":" + std::to_string(s.line) + ": " +
             clip(first_line(fa.facts.imports[s.import].text), 160);
    }
    EdgeState st = lookup.state(plan, edge);
    out << "  " << dot_quote(a.modules[edge.from].name) << " -> " << dot_quote(a.modules[edge.to].name)
        << " [id=" << dot_quote(prefix + "-e" + std::to_string(e));
    switch (st) {
      case EdgeState::Cut:
        out << ", class=\"cut\", color=\"" << kCutColour << "\", penwidth=3";
        tip = "deferred by the plan:\n" + tip;
        ++d.cut_edges;
        break;
      case EdgeState::PartialCut:
        out << ", class=\"cut partial\", color=\"" << kCutColour << "\", penwidth=3";
        tip = "partly deferred by the plan:\n" + tip;
        ++d.cut_edges;
        break;
      case EdgeState::Pinned:
        out << ", class=\"pinned\", style=dashed, color=\"" << kPinnedColour << "\", penwidth=1.6";
        tip = "cannot be deferred:\n" + tip;
        ++d.pinned_edges;
        break;
      case EdgeState::Plain:
        out << ", class=\"import\"";
        break;
    }
    out << ", tooltip=" << dot_quote(tip) << "];\n";
  }
  out << "}\n";
  d.dot = out.str();
  return d;
}

std::optional<std::string> find_program(const std::string& program) {
  auto runnable = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) return runnable(program) ? std::optional(program) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin:/bin";
  while (true) {
    auto colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (runnable(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

std::string graphviz_missing_message(const std::string& program) {
  return "the HTML report needs Graphviz to draw the cycles, but '" + program +
         "' was not found on PATH; install the Debian package graphviz (apt-get install graphviz); no report written";
}

bool render_svgs(const std::vector<std::string>& dots, const std::string& dot_program,
                 std::vector<std::string>* svgs, std::string* err) {
  svgs->clear();
  if (dots.empty()) return true;
  auto dot = find_program(dot_program);
  if (!dot) {
    *err = graphviz_missing_message(dot_program);
    return false;
  }
  // The DOT goes in and the SVG comes out through files in a private temporary
  // directory: no pipe to keep from filling while the other end waits.
  std::string tmpl = (std::filesystem::temp_directory_path() / "cyclefix-report-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    *err = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return false;
  }
  const std::filesystem::path dir = tmpl;
  const std::string in = (dir / "graphs.dot").string(), out = (dir / "graphs.svg").string(),
                    errs = (dir / "dot.err").string();
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  {
    std::ofstream f(in, std::ios::binary);
    for (const auto& d : dots) f << d;
    if (!f) {
      *err = "cannot write " + in;
      return false;
    }
  }
  std::vector<std::string> args = {*dot, "-Tsvg", in};  // not -o: that keeps the first graph only
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, errs.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, dot->c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *err = "cannot run " + *dot + ": " + std::strerror(rc) + " (Graphviz: Debian package graphviz)";
    return false;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  auto slurp = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *err = *dot + " -Tsvg failed: " + clip(slurp(errs), 2000);
    return false;
  }
  // One SVG document per graph; keep each <svg ...>...</svg> element.
  const std::string text = slurp(out);
  std::size_t pos = 0;
  while (true) {
    std::size_t begin = text.find("<svg", pos);
    if (begin == std::string::npos) break;
    std::size_t end = text.find("</svg>", begin);
    if (end == std::string::npos) break;
    end += 6;
    svgs->push_back(text.substr(begin, end - begin));
    pos = end;
  }
  if (svgs->size() != dots.size()) {
    *err = *dot + " -Tsvg returned " + std::to_string(svgs->size()) + " drawings for " +
           std::to_string(dots.size()) + " graphs: " + clip(slurp(errs), 2000);
    return false;
  }
  return true;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

bool is_python_keyword(std::string_view w) {
  static const std::set<std::string_view> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return kKeywords.count(w) > 0;
}

bool ident_char(char c, bool first) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalpha(u) || c == '_' || u >= 0x80 || (!first && std::isdigit(u));
}

// One line of Python, HTML-escaped, keywords, strings and comments in spans.
// Line by line: a string that spans lines is coloured on its first line only.
std::string highlight_python(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '#') {
      out += "<span class=\"cm\">" + html_escape(s.substr(i)) + "</span>";
      break;
    }
    if (c == '"' || c == '\'') {
      std::size_t quote = s.compare(i, 3, std::string(3, c)) == 0 ? 3 : 1;
      std::size_t j = i + quote;
      while (j < s.size()) {
        if (s[j] == '\\') {
          j += 2;
          continue;
        }
        if (s.compare(j, quote, std::string(quote, c)) == 0) {
          j += quote;
          break;
        }
        ++j;
      }
      j = std::min(j, s.size());
      out += "<span class=\"str\">" + html_escape(s.substr(i, j - i)) + "</span>";
      i = j;
      continue;
    }
    if (ident_char(c, true)) {
      std::size_t j = i + 1;
      while (j < s.size() && ident_char(s[j], false)) ++j;
      std::string_view w = s.substr(i, j - i);
      if (is_python_keyword(w)) out += "<span class=\"kw\">" + std::string(w) + "</span>";
      else out += html_escape(w);
      i = j;
      continue;
    }
    out += html_escape(s.substr(i, 1));
    ++i;
  }
  return out;
}

// "@@ -a,b +c,d @@": the hunk's old and new line counts.
bool parse_hunk(std::string_view line, long* old_count, long* new_count) {
  auto count_after = [&](char sign, long* n) {
    auto p = line.find(std::string(" ") + sign);
    if (p == std::string_view::npos) return false;
    p += 2;
    while (p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]))) ++p;
    *n = 1;
    if (p < line.size() && line[p] == ',') {
      *n = 0;
      for (++p; p < line.size() && std::isdigit(static_cast<unsigned char>(line[p])); ++p)
        *n = *n * 10 + (line[p] - '0');
    }
    return true;
  };
  return line.rfind("@@ ", 0) == 0 && count_after('-', old_count) && count_after('+', new_count);
}

}  // namespace

std::string highlight_diff(std::string_view diff) {
  std::string out;
  long old_left = 0, new_left = 0;  // lines left in the current hunk
  while (!diff.empty()) {
    auto nl = diff.find('\n');
    std::string_view line = diff.substr(0, nl);
    diff.remove_prefix(nl == std::string_view::npos ? diff.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const char* cls = "meta";
    bool code = false;
    if (old_left > 0 || new_left > 0) {
      char c = line.empty() ? ' ' : line[0];
      if (c == '+') {
        cls = "add", --new_left, code = true;
      } else if (c == '-') {
        cls = "del", --old_left, code = true;
      } else if (c == ' ' || line.empty()) {
        cls = "ctx", --old_left, --new_left, code = true;
      }
    } else if (line.rfind("\\ ", 0) == 0) {
      cls = "meta";
    } else if (parse_hunk(line, &old_left, &new_left)) {
      cls = "hunk";
    }
    out += "<span class=\"";
    out += cls;
    out += "\">";
    if (code && !line.empty()) out += html_escape(line.substr(0, 1)) + highlight_python(line.substr(1));
    else out += html_escape(line);
    out += "\n</span>";  // the newline inside: copying the diff keeps it; a block's last one adds no line
  }
  return out;
}

namespace {

constexpr const char* kCss = R"CSS(
:root{--cut:#d62728;--pinned:#ff7f0e;--pkg:#dbeafe;--muted:#6b7280;--line:#e5e7eb}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#111827;background:#f9fafb}
header{position:sticky;top:0;z-index:2;background:#111827;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center}
header h1{font-size:17px;margin:0;font-weight:600}
header input{flex:0 1 420px;padding:5px 8px;border-radius:4px;border:0;font:inherit}
#filter-count{color:#d1d5db}
main,#summary{padding:0 16px}
h2{font-size:16px;margin:0}
h3{font-size:14px;margin:12px 0 4px}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
table.summary{border-collapse:collapse;margin:8px 0;background:#fff}
table.summary td,table.summary th{border:1px solid var(--line);padding:3px 10px;text-align:left;vertical-align:top}
table.summary th{background:#f3f4f6;font-weight:600}
.legend span{display:inline-block;margin-right:14px}
.swatch{display:inline-block;width:26px;height:0;vertical-align:middle;margin-right:4px;border-top:2px solid var(--muted)}
.swatch.cut{border-top:4px solid var(--cut)}
.swatch.pinned{border-top:2px dashed var(--pinned)}
.box{display:inline-block;width:18px;height:12px;border:1px solid #444;border-radius:3px;background:#fff;vertical-align:middle;margin-right:4px}
.box.pkg{background:var(--pkg);border-color:#1d4ed8;border-radius:0}
section.component{background:#fff;border:1px solid var(--line);border-radius:6px;margin:14px 0;padding:8px 12px}
section.component>details>summary{cursor:pointer;list-style-position:outside}
section.component>details>summary h2{display:inline}
.sub{color:var(--muted);font-weight:400}
.body{display:grid;grid-template-columns:minmax(0,3fr) minmax(320px,2fr);gap:16px;margin-top:8px}
@media (max-width:900px){.body{grid-template-columns:1fr}}
.picture{align-self:start;overflow:auto;max-height:85vh;border:1px solid var(--line);border-radius:4px;padding:6px;background:#fff}
.picture svg{max-width:100%;height:auto;display:block;margin:auto}
.picture.full svg{max-width:none}
.note{background:#fef3c7;border:1px solid #f59e0b;border-radius:4px;padding:4px 8px;margin:0 0 6px}
svg g.edge.cut path{stroke:var(--cut);stroke-width:3px}
svg g.edge.cut polygon{stroke:var(--cut);fill:var(--cut)}
svg g.edge.pinned path{stroke:var(--pinned);stroke-dasharray:6 3}
svg g.edge.pinned polygon{stroke:var(--pinned);fill:var(--pinned)}
svg g.edge:hover path{stroke-width:4px}
.facts{min-width:0}
.facts ol,.facts ul{margin:2px 0;padding-left:22px}
.facts li{margin:2px 0;overflow-wrap:anywhere}
.hops{list-style:none;padding-left:10px !important;color:#374151}
.loc{color:#1d4ed8}
.cutitem{border-left:4px solid var(--cut);padding-left:6px;margin:6px 0}
.pinitem{border-left:3px dashed var(--pinned);padding-left:6px;margin:6px 0}
.why{color:#374151}
details.diff{margin-top:10px}
details.diff>summary{cursor:pointer;font-weight:600}
pre.diff{background:#0f172a;color:#e5e7eb;padding:8px;border-radius:4px;overflow:auto;margin:4px 0}
pre.diff span{display:block;white-space:pre}
pre.diff .add{background:#14532d}
pre.diff .del{background:#7f1d1d}
pre.diff .hunk{color:#93c5fd}
pre.diff .meta{color:#fbbf24;font-weight:600}
pre.diff .kw{display:inline;color:#f472b6;font-weight:600}
pre.diff .str{display:inline;color:#86efac}
pre.diff .cm{display:inline;color:#9ca3af;font-style:italic}
.ok{color:#15803d;font-weight:600}
.bad{color:#b91c1c;font-weight:600}
#selfcheck{display:none}
)CSS";

// Filter box; and on load, a self-check the browser test reads from #selfcheck:
// every drawing laid out with a non-zero box, the cut edges' computed stroke.
constexpr const char* kJs = R"JS(
(function(){
  var comps=[].slice.call(document.querySelectorAll('section.component'));
  var box=document.getElementById('filter'), count=document.getElementById('filter-count'), texts=null;
  box.addEventListener('input',function(){
    if(!texts) texts=comps.map(function(c){return c.textContent.toLowerCase();});
    var q=box.value.trim().toLowerCase(), shown=0;
    comps.forEach(function(c,i){
      var hit=!q||texts[i].indexOf(q)>=0;
      c.hidden=!hit; if(hit) shown++;
      var items=[].slice.call(c.querySelectorAll('.filterable'));
      var some=q&&items.some(function(li){return li.textContent.toLowerCase().indexOf(q)>=0;});
      items.forEach(function(li){li.hidden=!!some&&li.textContent.toLowerCase().indexOf(q)<0;});
    });
    count.textContent=q?shown+' of '+comps.length+' cycles match':'';
  });
  document.querySelectorAll('.picture').forEach(function(p){
    p.addEventListener('click',function(){p.classList.toggle('full');});
  });
  window.addEventListener('load',function(){
    var r={load_ms:Math.round(performance.now()),components:comps.length,svgs:0,visible:0,
           cut_expected:0,cut_edges:0,cut_highlighted:0,failures:[]};
    comps.forEach(function(c){
      r.cut_expected+=parseInt(c.getAttribute('data-cut-edges'),10);
      var s=c.querySelector('.picture svg');
      if(!s){r.failures.push(c.id+': no svg');return;}
      r.svgs++;
      var b=s.getBoundingClientRect();
      if(b.width>0&&b.height>0) r.visible++; else r.failures.push(c.id+': svg not visible');
    });
    document.querySelectorAll('section.component svg g.edge.cut').forEach(function(g){
      r.cut_edges++;
      var p=g.querySelector('path'), cs=p&&getComputedStyle(p);
      if(cs&&cs.stroke==='rgb(214, 39, 40)'&&parseFloat(cs.strokeWidth)>=2) r.cut_highlighted++;
      else r.failures.push(g.id+': cut edge not highlighted');
    });
    r.laid_out_ms=Math.round(performance.now());
    var nav=performance.getEntriesByType&&performance.getEntriesByType('navigation')[0];
    if(nav) r.dom_content_loaded_ms=Math.round(nav.domContentLoadedEventEnd);
    r.height=document.documentElement.scrollHeight;
    document.getElementById('selfcheck').textContent=JSON.stringify(r);
  });
})();
)JS";

std::string loc(const std::string& file, int line) {
  return "<span class=\"loc mono\">" + html_escape(file) + ":" + std::to_string(line) + "</span>";
}

std::string fmt(double v) {
  std::ostringstream o;
  o << std::setprecision(4) << v;
  return o.str();
}

std::string before_after(std::size_t before, std::size_t after) {
  return "<td>" + std::to_string(before) + " &rarr; <span class=\"" + (after == 0 ? "ok" : "bad") + "\">" +
         std::to_string(after) + "</span></td>";
}

}  // namespace

std::string html_page(const Analysis& a, const CycleReport& cycles, const CutPlan& plan, const RewriteResult& rw,
                      const ReportOutcome& outcome, const std::vector<ComponentDrawing>& drawings,
                      const std::vector<std::string>& svgs) {
  const std::vector<int> comp_of = component_per_module(a, cycles);
  auto comp_of_file = [&](int file) { return comp_of[a.files[file].module]; };
  std::size_t uncuttable = 0;
  for (const auto& c : plan.candidates) uncuttable += !c.cuttable;

  std::string h;
  h.reserve(1 << 20);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<title>cyclefix report</title>\n<style>";
  h += kCss;
  h += "</style>\n</head>\n<body>\n<header><h1>cyclefix report</h1>"
       "<input id=\"filter\" type=\"search\" placeholder=\"Filter cycles: module, file, text\" "
       "aria-label=\"Filter cycles\"><span id=\"filter-count\"></span></header>\n";

  // Summary.
  h += "<section id=\"summary\">\n<h2 style=\"margin-top:12px\">Summary</h2>\n<table class=\"summary\">\n";
  h += "<tr><th>files</th><td>" + std::to_string(a.files.size()) + " (" + std::to_string(a.total_lines) +
       " lines)</td></tr>\n";
  h += "<tr><th>modules</th><td>" + std::to_string(a.modules.size()) + ", " +
       std::to_string(a.graph.edges().size()) + " import-time edges</td></tr>\n";
  h += "<tr><th>import cycles (strongly connected components)</th>" +
       before_after(cycles.components.size(), outcome.cycles_after) + "</tr>\n";
  h += "<tr><th>failing entry points, normal entry (predicted)</th>" +
       before_after(outcome.failing_before.normal, outcome.failing_after.normal) + "</tr>\n";
  h += "<tr><th>failing entry points, bare entry (predicted)</th>" +
       before_after(outcome.failing_before.bare, outcome.failing_after.bare) + "</tr>\n";
  h += "<tr><th>cuts</th><td>" + std::to_string(plan.cuts.size()) + " planned, " +
       std::to_string(rw.cuts_applied) + " made in " + std::to_string(rw.files.size()) + " file(s)</td></tr>\n";
  h += "<tr><th>statements that cannot be deferred</th><td>" + std::to_string(uncuttable) + " of " +
       std::to_string(plan.candidates.size()) + " on the cycles</td></tr>\n";
  h += "<tr><th>plan cost</th><td>" + fmt(plan.cost) + " (lower bound " + fmt(plan.lower_bound) + ", gap " +
       fmt(plan.gap * 100) + "%" + (plan.optimal ? ", optimal" : "") + "; " + html_escape(plan.method) + ", " +
       fmt(plan.seconds) + " s)</td></tr>\n";
  if (plan.skipped_by_select)
    h += "<tr><th>skipped by --select</th><td>" + std::to_string(plan.skipped_by_select) + " cycle(s)</td></tr>\n";
  if (!a.diagnostics.empty())
    h += "<tr><th>per-file problems</th><td>" + std::to_string(a.diagnostics.size()) +
         " (printed on stderr)</td></tr>\n";
  h += "</table>\n";
  if (!plan.unbreakable_loops.empty()) {
    h += std::string("<details") + (plan.unbreakable_loops.size() <= 5 ? " open" : "") + "><summary>" +
         std::to_string(plan.unbreakable_loops.size()) +
         " unbreakable loop(s): every statement on them is pinned</summary>\n<ul>\n";
    for (const auto& loop : plan.unbreakable_loops)
      h += "<li><code>" + html_escape(loop_text(a, loop)) + "</code></li>\n";
    h += "</ul>\n</details>\n";
  }
  for (const auto& p : rw.problems)
    h += "<p class=\"note\">not rewritten: " + loc(p.file, p.line) + " " + html_escape(p.message) + "</p>\n";
  h += "<p class=\"legend\"><span><i class=\"box\"></i>module</span><span><i class=\"box pkg\"></i>package "
       "<code>__init__</code></span><span><i class=\"swatch\"></i>import-time edge</span>"
       "<span><i class=\"swatch cut\"></i>cut (deferred by the plan)</span>"
       "<span><i class=\"swatch pinned\"></i>cannot be deferred</span>"
       "<span class=\"sub\">hover an edge for its statements</span></p>\n";
  if (cycles.components.empty()) h += "<p class=\"ok\">No import cycles.</p>\n";
  h += "</section>\n<main>\n";

  for (std::size_t i = 0; i < cycles.components.size(); ++i) {
    const ReportedComponent& c = cycles.components[i];
    const ComponentDrawing& d = drawings[i];
    const std::string id = "cycle-" + std::to_string(i + 1);
    std::vector<int> cuts, pinned;
    for (int k : plan.cuts)
      if (comp_of_file(plan.candidates[k].file) == static_cast<int>(i)) cuts.push_back(k);
    for (std::size_t k = 0; k < plan.candidates.size(); ++k)
      if (!plan.candidates[k].cuttable && comp_of_file(plan.candidates[k].file) == static_cast<int>(i))
        pinned.push_back(static_cast<int>(k));

    h += "<section class=\"component\" id=\"" + id + "\" data-cut-edges=\"" + std::to_string(d.cut_edges) +
         "\">\n<details open>\n<summary><h2>Import cycle " + std::to_string(i + 1) + "</h2> <span class=\"sub\">" +
         std::to_string(c.modules.size()) + " modules, " + std::to_string(c.edges) + " edges, " +
         std::to_string(c.loops.size()) + " loop(s) listed, " + std::to_string(cuts.size()) + " cut(s)";
    if (c.failing_normal >= 0)
      h += (c.failing_normal == 0 && c.failing_bare == 0)
               ? "; harmless: no entry point fails"
               : "; failing entry points: " + std::to_string(c.failing_normal) + " normal, " +
                     std::to_string(c.failing_bare) + " bare";
    h += "</span></summary>\n<div class=\"body\">\n<div class=\"picture\">\n";
    if (d.reduced)
      h += "<p class=\"note\">This cycle has " + std::to_string(c.modules.size()) +
           " modules; the drawing shows only the " + std::to_string(d.modules_drawn) + " modules of its " +
           std::to_string(d.loops_drawn) +
           " shortest loops (those through a cut first) and only the edges of those loops. "
           "Click the drawing to see it at full size.</p>\n";
    h += svgs[i];
    h += "\n</div>\n<div class=\"facts\">\n";

    // Loops, with file:line per hop.
    h += std::string("<details") + (c.loops.size() <= 20 ? " open" : "") + "><summary><h3 style=\"display:inline\">" +
         "Loops (" + std::to_string(c.loops.size()) + (c.capped ? ", capped" : "") +
         ")</h3></summary>\n<ol class=\"loops\">\n";
    for (const ReportedLoop& l : c.loops) {
      h += "<li class=\"filterable\"><code>" + html_escape(loop_text(a, l.modules)) + "</code>\n<ul class=\"hops\">";
      for (const Hop& hop : l.hops)
        h += "<li>" + loc(hop.file, hop.line) + " <code>" + html_escape(hop.statement) + "</code></li>";
      h += "</ul></li>\n";
    }
    h += "</ol>\n";
    if (c.capped)
      h += "<p class=\"sub\">loops capped at " + std::to_string(cycles.max_loops) + "; they cover " +
           std::to_string(c.edges_covered) + " of " + std::to_string(c.edges) + " edges (raise --max-loops)</p>\n";
    h += "</details>\n";

    // Cuts: what is deferred, where it goes, which loops it breaks.
    h += std::string("<details") + (cuts.size() <= 20 ? " open" : "") +
         "><summary><h3 style=\"display:inline\">Cuts (" + std::to_string(cuts.size()) + ")</h3></summary>\n";
    for (int k : cuts) {
      const CandidateStatement& cand = plan.candidates[k];
      const FileAnalysis& fa = a.files[cand.file];
      const ImportStatement& st = fa.facts.imports[cand.import];
      h += "<div class=\"cutitem filterable\">defer " + loc(fa.source.display, st.line) + " <code>" +
           html_escape(first_line(st.text)) + "</code> <span class=\"sub\">(cost " + fmt(cand.cost) + ")</span>";
      if (!cand.functions.empty()) {
        h += "<div class=\"why\">into:";
        for (const auto& f : cand.functions) h += " <code>" + html_escape(f) + "()</code>";
        h += "</div>";
      }
      if (!cand.type_checking.empty()) {
        h += "<div class=\"why\">under <code>TYPE_CHECKING</code>:";
        for (const auto& n : cand.type_checking) h += " <code>" + html_escape(n) + "</code>";
        h += "</div>";
      }
      for (const auto& broken : loops_broken_by(a, cycles, cand))
        h += std::string("<div class=\"why\">") + (keeps_edge(cand.strategy) ? "fixes the failure on" : "breaks") +
             " <code>" + html_escape(broken) + "</code></div>";
      h += "</div>\n";
    }
    h += "</details>\n";

    // Statements that stay, and the use that pins each.
    h += std::string("<details") + (pinned.size() <= 20 ? " open" : "") +
         "><summary><h3 style=\"display:inline\">Cannot be deferred (" + std::to_string(pinned.size()) +
         ")</h3></summary>\n";
    for (int k : pinned) {
      const CandidateStatement& cand = plan.candidates[k];
      const FileAnalysis& fa = a.files[cand.file];
      const ImportStatement& st = fa.facts.imports[cand.import];
      h += "<div class=\"pinitem filterable\">" + loc(fa.source.display, st.line) + " <code>" +
           html_escape(first_line(st.text)) + "</code><div class=\"why\">" + html_escape(cand.reason) +
           "</div></div>\n";
    }
    h += "</details>\n</div>\n</div>\n";

    // The component's changes.
    std::string diff;
    std::size_t files = 0, lines = 0;
    for (const FileRewrite& fr : rw.files) {
      if (comp_of_file(fr.file) != static_cast<int>(i)) continue;
      std::string one = unified_diff(fr.before, fr.after, a.files[fr.file].source.display);
      lines += static_cast<std::size_t>(std::count(one.begin(), one.end(), '\n'));
      diff += highlight_diff(one);
      ++files;
    }
    for (const CreatedFile& nf : rw.created) {  // with the component of its first reader
      if (comp_of_file(plan.candidates[nf.cuts.front()].file) != static_cast<int>(i)) continue;
      std::string one = new_file_diff(nf.text, nf.display);
      lines += static_cast<std::size_t>(std::count(one.begin(), one.end(), '\n'));
      diff += highlight_diff(one);
      ++files;
    }
    if (files)
      h += std::string("<details class=\"diff\"") + (lines <= 400 ? " open" : "") + "><summary>Diff (" +
           std::to_string(files) + " file(s), " + std::to_string(lines) + " lines)</summary>\n<pre class=\"diff\">" +
           diff + "</pre>\n</details>\n";
    h += "</details>\n</section>\n";
  }
  h += "</main>\n<pre id=\"selfcheck\"></pre>\n<script>";
  h += kJs;
  h += "</script>\n</body>\n</html>\n";
  return h;
}

bool render_html_report(const Analysis& a, const CycleReport& cycles, const CutPlan& plan, const RewriteResult& rw,
                        const ReportOutcome& outcome, const HtmlReportOptions& options, std::string* html,
                        std::string* err) {
  std::vector<ComponentDrawing> drawings;
  std::vector<std::string> dots, svgs;
  for (std::size_t i = 0; i < cycles.components.size(); ++i) {
    drawings.push_back(component_dot(a, cycles, plan, i, options));
    dots.push_back(drawings.back().dot);
  }
  if (!find_program(options.dot)) {
    *err = graphviz_missing_message(options.dot);
    return false;
  }
  if (!render_svgs(dots, options.dot, &svgs, err)) return false;
  *html = html_page(a, cycles, plan, rw, outcome, drawings, svgs);
  return true;
}

}  // namespace cyclefix
