#include "split_patches.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "strings.hpp"
#include "unified_diff.hpp"

namespace cyclefix {

namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  std::string out = nl == std::string::npos ? s : s.substr(0, nl);
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\\')) out.pop_back();
  return nl == std::string::npos ? out : out + " ...";
}

std::string code(const std::string& s) { return "`" + s + "`"; }

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The group a cut belongs to, with the stem its name gets before de-duplication.
struct GroupKey {
  std::string name, stem;
  bool operator==(const GroupKey& o) const { return name == o.name; }
};

GroupKey key_of(const Analysis& a, const CycleReport& r, const FileAnalysis& fa, SplitBy by,
                const CodeOwners* owners) {
  const std::string& module = a.modules[fa.module].name;
  switch (by) {
    case SplitBy::Package: {
      std::string top = module.substr(0, module.find('.'));
      return {top, file_stem(top)};
    }
    case SplitBy::Owner: {
      std::vector<std::string> who = owners ? owners->owners_of_file(fa.source.path) : std::vector<std::string>{};
      if (who.empty()) return {"unowned", "unowned"};
      std::vector<std::string> stems;
      for (const auto& o : who) stems.push_back(file_stem(o));
      return {join(who, " "), join(stems, "+")};
    }
    case SplitBy::Cycle: {
      int k = component_of(r, fa.module);
      if (k < 0) return {"no-cycle", "no-cycle"};
      const std::string& first = a.modules[r.components[k].modules.front()].name;
      return {first, file_stem(first)};
    }
  }
  return {"group", "group"};
}

// Candidate index by (file, import), to find the other statements on a loop.
std::map<std::pair<int, int>, int> candidate_index(const CutPlan& plan) {
  std::map<std::pair<int, int>, int> out;
  for (std::size_t i = 0; i < plan.candidates.size(); ++i)
    out[{plan.candidates[i].file, plan.candidates[i].import}] = static_cast<int>(i);
  return out;
}

std::string where(const Analysis& a, const CandidateStatement& c) {
  const FileAnalysis& fa = a.files[c.file];
  return fa.source.display + ":" + std::to_string(fa.facts.imports[c.import].line);
}

std::string statement(const Analysis& a, const CandidateStatement& c) {
  return first_line(a.files[c.file].facts.imports[c.import].text);
}

}  // namespace

std::optional<SplitBy> parse_split_by(std::string_view s) {
  if (s == "package") return SplitBy::Package;
  if (s == "owner") return SplitBy::Owner;
  if (s == "cycle") return SplitBy::Cycle;
  return std::nullopt;
}

std::string_view to_string(SplitBy by) {
  switch (by) {
    case SplitBy::Package: return "package";
    case SplitBy::Owner: return "owner";
    case SplitBy::Cycle: return "cycle";
  }
  return "?";
}

std::string file_stem(std::string_view name) {
  while (!name.empty() && (name.front() == '@' || name.front() == '.')) name.remove_prefix(1);
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '+';
    out += ok ? c : '_';
  }
  return out.empty() ? "group" : out;
}

PatchSplit split_patches(const Analysis& a, const CycleReport& r, const CutPlan& plan, const RewriteResult& rw,
                         SplitBy by, const CodeOwners* owners) {
  PatchSplit split;
  split.by = by;
  if (by == SplitBy::Owner && owners) split.codeowners = owners->file.string();
  std::map<std::string, PatchGroup> groups;
  std::map<std::string, std::string> stems;
  for (std::size_t i = 0; i < rw.files.size(); ++i) {
    const FileRewrite& fr = rw.files[i];
    const FileAnalysis& fa = a.files[fr.file];
    // Every cut of a file is made by the file's module, so the keys used here
    // agree for all cuts of a file; the check keeps the rule honest if a key
    // ever depends on the cut itself.
    std::vector<GroupKey> keys;
    // A file that definitions moved out of goes with the importer they moved for.
    for (int c : fr.extracted_for) keys.push_back(key_of(a, r, a.files[plan.candidates[c].file], by, owners));
    for (int c : fr.cuts) keys.push_back(key_of(a, r, a.files[plan.candidates[c].file], by, owners));
    if (keys.empty()) keys.push_back(key_of(a, r, fa, by, owners));
    PatchGroup& g = groups[keys.front().name];
    g.name = keys.front().name;
    stems.emplace(g.name, keys.front().stem);
    g.files.push_back(i);
    g.cuts.insert(g.cuts.end(), fr.cuts.begin(), fr.cuts.end());
    std::vector<std::string> others;
    for (const auto& k : keys)
      if (!(k == keys.front()) && std::find(others.begin(), others.end(), k.name) == others.end())
        others.push_back(k.name);
    if (!others.empty())
      g.notes.push_back(code(fa.source.display) + " also has cuts for " + join(others, ", ") +
                        "; the whole file is in this patch (the changes of one file go into one patch)");
  }
  for (std::size_t i = 0; i < rw.created.size(); ++i) {
    const CreatedFile& nf = rw.created[i];
    const GroupKey k = key_of(a, r, a.files[plan.candidates[nf.cuts.front()].file], by, owners);
    PatchGroup& g = groups[k.name];
    g.name = k.name;
    stems.emplace(g.name, k.stem);
    g.created.push_back(i);
    for (int c : nf.cuts) {
      const GroupKey other = key_of(a, r, a.files[plan.candidates[c].file], by, owners);
      if (other.name != k.name)
        groups[other.name].notes.push_back("needs " + code(nf.display) + ", which the patch for " + k.name +
                                           " creates: apply that one first");
    }
  }
  std::set<std::string> used = {"index"};
  for (auto& [name, g] : groups) {
    std::sort(g.cuts.begin(), g.cuts.end());
    std::set<std::size_t> comps;
    for (int c : g.cuts) {
      int k = component_of(r, a.files[plan.candidates[c].file].module);
      if (k >= 0) comps.insert(static_cast<std::size_t>(k));
    }
    g.components.assign(comps.begin(), comps.end());
    std::string stem = stems[name];
    for (int n = 2; used.count(stem); ++n) stem = stems[name] + "-" + std::to_string(n);
    used.insert(stem);
    g.stem = stem;
    split.groups.push_back(std::move(g));
  }
  return split;
}

std::string group_patch(const Analysis& a, const RewriteResult& rw, const PatchGroup& g) {
  // By path, new modules among the changed files, as the unsplit diff has them.
  std::vector<std::pair<std::string, std::string>> parts;
  for (std::size_t i : g.files) {
    const FileRewrite& fr = rw.files[i];
    const std::string& display = a.files[fr.file].source.display;
    parts.emplace_back(display, unified_diff(fr.before, fr.after, display));
  }
  for (std::size_t i : g.created) parts.emplace_back(rw.created[i].display, new_file_diff(rw.created[i].text, rw.created[i].display));
  std::stable_sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out;
  for (const auto& [display, diff] : parts) out += diff;
  return out;
}

namespace {

// Whether the patch imports a new module another patch creates (its notes say which).
bool needs_another(const PatchGroup& g) {
  return std::any_of(g.notes.begin(), g.notes.end(), [](const std::string& n) { return n.starts_with("needs "); });
}

// "2 deferred, so that they no longer run while the module loads": what a
// patch's cuts of one strategy do, for its opening sentence.
std::string strategy_summary(Strategy s, std::size_t n) {
  const std::string count = std::to_string(n) + " ";
  switch (s) {
    case Strategy::Defer:
      return count + "deferred, so that " + (n == 1 ? "it no longer runs" : "they no longer run") +
             " while the module loads";
    case Strategy::Bypass:
      return count + "now importing " + (n == 1 ? "its names" : "their names") +
             " from the modules that define them, which do not import back";
    case Strategy::LateBind:
      return count + "late-bound: the module is imported and its names are read where they are used";
    case Strategy::Lazy:
      return count + "made lazy (PEP 810): " + (n == 1 ? "it runs" : "they run") + " on first use";
    case Strategy::MoveBelow:
      return count + "moved below the definitions the other side of the loop reads";
    case Strategy::Extract:
      return count + "now importing " + (n == 1 ? "its names" : "their names") +
             " from a new module that the definitions moved to, which imports neither side";
  }
  return count + std::string(to_string(s));
}

}  // namespace

std::string group_summary(const Analysis& a, const CycleReport& r, const CutPlan& plan, const RewriteResult& rw,
                          const PatchSplit& split, std::size_t gi) {
  const PatchGroup& g = split.groups[gi];
  const auto by_stmt = candidate_index(plan);
  std::ostringstream md;
  std::string title = split.by == SplitBy::Package ? "package " + code(g.name)
                      : split.by == SplitBy::Owner ? (g.name == "unowned" ? std::string("files without a code owner")
                                                                          : "owned by " + g.name)
                                                   : "import cycle through " + code(g.name);
  md << "# Break import cycles: " << title << "\n\n";
  // What it does to the statements, by strategy, in the order of Strategy.
  std::map<Strategy, std::size_t> by_strategy;
  for (int c : g.cuts) ++by_strategy[plan.candidates[c].strategy];
  std::vector<std::string> parts;
  for (const auto& [strategy, n] : by_strategy) parts.push_back(strategy_summary(strategy, n));
  const bool depends = needs_another(g);
  md << "This patch changes " << plural(g.cuts.size(), "import statement", "import statements") << " in "
     << plural(g.files.size(), "file", "files")
     << (g.created.empty() ? "" : " and creates " + plural(g.created.size(), "new module", "new modules")) << ": "
     << join(parts, "; ") << " ("
     << "`cyclefix --split-by " << to_string(split.by) << "`, patch " << (gi + 1) << " of " << split.groups.size()
     << ")."
     << (depends ? " It applies after the patch that creates the module it needs (see Notes).\n"
                 : " It applies on its own to a clean tree, in any order with the other patches.\n");
  if (split.by == SplitBy::Owner && !split.codeowners.empty())
    md << "Owners from " << code(split.codeowners) << ".\n";

  // Which groups cut each component: a cycle is gone only when all of them are merged.
  std::map<std::size_t, std::vector<std::size_t>> groups_of_component;
  for (std::size_t h = 0; h < split.groups.size(); ++h)
    for (std::size_t k : split.groups[h].components) groups_of_component[k].push_back(h);

  md << "\n## Import cycles\n";
  for (std::size_t k : g.components) {
    const ReportedComponent& comp = r.components[k];
    std::vector<std::string> names;
    for (ModuleId m : comp.modules) names.push_back(code(a.modules[m].name));
    md << "\n### Import cycle " << (k + 1) << ": " << plural(comp.modules.size(), "module", "modules") << "\n\n";
    md << "Modules: " << join(names, ", ") << ".\n\n";
    // Loops a cut breaks (its edge goes), and loops whose import failure a
    // late-bind or move-below cut fixes while the edge stays.
    std::vector<std::string> loops, fixed;
    for (int c : g.cuts) {
      if (component_of(r, a.files[plan.candidates[c].file].module) != static_cast<int>(k)) continue;
      std::vector<std::string>& into = keeps_edge(plan.candidates[c].strategy) ? fixed : loops;
      for (const auto& l : loops_through(a, r, plan.candidates[c])) {
        std::string t = loop_text(a, l);
        if (std::find(into.begin(), into.end(), t) == into.end()) into.push_back(t);
      }
    }
    std::erase_if(fixed, [&](const std::string& t) { return std::find(loops.begin(), loops.end(), t) != loops.end(); });
    md << "Loops this patch breaks (" << loops.size() << " of the " << comp.loops.size() << " listed"
       << (comp.capped ? ", capped by --max-loops" : "") << "):\n";
    for (const auto& l : loops) md << "- " << code(l) << "\n";
    if (!fixed.empty()) {
      md << "\nLoops that stay, whose import failure this patch fixes (late binding, or an import moved below the "
            "definitions it needs):\n";
      for (const auto& l : fixed) md << "- " << code(l) << "\n";
    }
    std::vector<std::string> others;
    for (std::size_t h : groups_of_component[k])
      if (h != gi) others.push_back(code(split.groups[h].stem + ".diff"));
    md << "\n";
    if (others.empty())
      md << "All the cuts this cycle gets are in this patch.\n";
    else
      md << "The cycle also gets cuts in " << join(others, ", ")
         << ": it is gone only once those are merged too (this patch alone breaks the loops above).\n";
    std::vector<std::string> stuck;
    for (const auto& loop : plan.unbreakable_loops)
      if (!loop.empty() && std::binary_search(comp.modules.begin(), comp.modules.end(), loop.front()))
        stuck.push_back(code(loop_text(a, loop)));
    if (!stuck.empty())
      md << "Loops no cut can break (every statement on them is pinned) remain: " << join(stuck, ", ") << ".\n";
    bool header = false;
    for (const auto& c : plan.candidates) {
      if (c.cuttable || component_of(r, a.files[c.file].module) != static_cast<int>(k)) continue;
      if (!header) md << "\nStatements on this cycle that cannot be deferred:\n";
      header = true;
      md << "- " << code(where(a, c)) << " " << code(statement(a, c)) << ": " << c.reason;
      // The statement may be one this patch changes another way (as the plan says).
      if (const std::string how = changed_instead(plan, g.cuts, c); !how.empty())
        md << "; changed instead: " << how << " (see Cuts)";
      md << "\n";
    }
  }

  md << "\n## Cuts\n";
  for (int ci : g.cuts) {
    const CandidateStatement& c = plan.candidates[ci];
    md << "\n### " << code(where(a, c)) << " " << code(statement(a, c)) << "\n\n";
    auto loops = loops_through(a, r, c);
    std::vector<std::string> texts;
    for (const auto& l : loops) texts.push_back(code(loop_text(a, l)));
    const std::string listed = texts.empty() ? std::string("(no listed loop)") : join(texts, ", ");
    if (keeps_edge(c.strategy))
      md << "- Fixes the import failure on " << listed << " (the import stays on the loop)\n";
    else
      md << "- Breaks: " << listed << "\n";
    if (!c.functions.empty()) {
      std::vector<std::string> fns;
      for (const auto& f : c.functions) fns.push_back(code(f + "()"));
      md << "- Moves into " << join(fns, ", ") << " (the functions that use "
         << (c.names.size() == 1 ? "the name" : "its names") << ", only when called)\n";
    }
    if (!c.type_checking.empty()) {
      std::vector<std::string> tc;
      for (const auto& n : c.type_checking) tc.push_back(code(n));
      md << "- Under `if TYPE_CHECKING:` (used in annotations only): " << join(tc, ", ") << "\n";
    }
    if (!c.how.empty()) md << "- " << c.how << "\n";
    md << "- Cost " << number(c.cost) << " = " << c.cost_terms << "\n";
    // The other statements on the same loops: what the planner passed over, and why.
    std::vector<std::string> alternatives;
    std::set<int> seen = {ci};
    for (const auto& loop : loops)
      for (std::size_t h = 0; h + 1 < loop.size(); ++h)
        if (const ImportEdge* e = a.graph.find(loop[h], loop[h + 1]))
          for (const StatementRef& s : e->statements) {
            auto it = by_stmt.find({s.file, s.import});
            if (it == by_stmt.end() || !seen.insert(it->second).second) continue;
            const CandidateStatement& o = plan.candidates[it->second];
            bool chosen = std::binary_search(plan.cuts.begin(), plan.cuts.end(), it->second);
            alternatives.push_back(code(where(a, o)) + " " +
                                   (chosen ? std::string("(also cut)")
                                    : o.cuttable ? "(cost " + number(o.cost) + ")"
                                                 : "(cannot be deferred)"));
          }
    if (!alternatives.empty()) {
      constexpr std::size_t kShown = 8;
      std::size_t more = alternatives.size() > kShown ? alternatives.size() - kShown : 0;
      alternatives.resize(std::min(alternatives.size(), kShown));
      md << "- Other statements on these loops: " << join(alternatives, ", ")
         << (more ? ", and " + std::to_string(more) + " more" : "") << "\n";
    }
  }
  md << "\nThe cuts are the planner's minimum-cost set for the whole run (" << plan.method << ", total cost "
     << number(plan.cost) << (plan.optimal ? ", proven optimal" : ", lower bound " + number(plan.lower_bound))
     << "), in lines of the diff: each line of a removed statement costs " << number(kCostPerStatementLine)
     << ", each function that receives a local import " << number(kCostPerFunction)
     << " (the import, its note and a penalty), an entry under `if TYPE_CHECKING:` "
     << number(kCostPerTypeCheckingEntry) << ", a change to a package `__init__.py` "
     << number(kCostPackageInit) << " more.\n";

  std::vector<std::string> notes = g.notes;
  for (std::size_t i : g.files) {
    const std::string& display = a.files[rw.files[i].file].source.display;
    for (const auto& p : rw.problems)
      if (p.file == display)
        notes.push_back(code(p.file + (p.line ? ":" + std::to_string(p.line) : "")) + ": " + p.message);
  }
  if (!notes.empty()) {
    md << "\n## Notes\n\n";
    for (const auto& n : notes) md << "- " << n << "\n";
  }
  return md.str();
}

std::string split_index(const Analysis& a, const CycleReport& r, const CutPlan& plan, const RewriteResult& rw,
                        const PatchSplit& split) {
  std::ostringstream md;
  md << "# cyclefix: " << plural(split.groups.size(), "patch", "patches") << ", split by " << to_string(split.by)
     << "\n\n";
  // A patch whose reader needs another patch's new module (an extraction's)
  // applies after that one.
  const bool ordered = std::any_of(split.groups.begin(), split.groups.end(), needs_another);
  md << (ordered ? "Each patch applies on its own to a clean tree, except one whose notes name a patch to apply "
                   "first (it imports a module that patch creates); together they are the whole change "
                 : "Each patch applies on its own to a clean tree, in any order; together they are the whole change ")
     << "(`cyclefix` without `--split-by`). Apply one with `git apply NAME.diff` (or `patch -p1 < NAME.diff`) "
        "from the directory cyclefix ran in; NAME.md is its pull-request description.\n";
  if (split.by == SplitBy::Owner)
    md << "\nOwners from " << (split.codeowners.empty() ? std::string("(no CODEOWNERS file)") : code(split.codeowners))
       << ".\n";
  std::map<std::size_t, std::size_t> groups_per_component;
  for (const auto& g : split.groups)
    for (std::size_t k : g.components) groups_per_component[k]++;
  md << "\n| patch | group | files | cuts | import cycles |\n|---|---|---|---|---|\n";
  for (const auto& g : split.groups) {
    std::size_t alone = 0;
    for (std::size_t k : g.components) alone += groups_per_component[k] == 1;
    std::string cycles = std::to_string(g.components.size());
    if (g.components.size() != alone)
      cycles += " (" + std::to_string(g.components.size() - alone) + " shared with other patches)";
    md << "| [" << g.stem << ".diff](" << g.stem << ".diff) ([summary](" << g.stem << ".md)) | " << code(g.name)
       << " | " << g.files.size() << " | " << g.cuts.size() << " | " << cycles << " |\n";
  }
  md << "\n" << plural(r.components.size(), "import cycle", "import cycles") << "; " << rw.cuts_applied << " of "
     << plural(plan.cuts.size(), "planned cut", "planned cuts") << " made in "
     << plural(rw.files.size(), "file", "files") << "; plan cost " << number(plan.cost) << " (" << plan.method
     << (plan.optimal ? ", optimal" : "") << ").\n";
  std::vector<std::string> notes;
  for (const auto& g : split.groups)
    for (const auto& n : g.notes) notes.push_back(n);
  for (const auto& p : rw.problems)
    notes.push_back(code(p.file + (p.line ? ":" + std::to_string(p.line) : "")) + ": " + p.message);
  if (!notes.empty()) {
    md << "\n## Notes\n\n";
    for (const auto& n : notes) md << "- " << n << "\n";
  }
  return md.str();
}

nlohmann::json split_json(const fs::path& dir, const Analysis& a, const RewriteResult& rw, const PatchSplit& split) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : split.groups) {
    nlohmann::json files = nlohmann::json::array();
    for (std::size_t i : g.files) files.push_back(a.files[rw.files[i].file].source.display);
    for (std::size_t i : g.created) files.push_back(rw.created[i].display);
    out.push_back({{"group", g.name},
                   {"diff", (dir / (g.stem + ".diff")).string()},
                   {"summary", (dir / (g.stem + ".md")).string()},
                   {"files", files},
                   {"cuts", g.cuts.size()}});
  }
  return out;
}

bool write_split_patches(const fs::path& dir, const Analysis& a, const CycleReport& r, const CutPlan& plan,
                         const RewriteResult& rw, const PatchSplit& split, std::vector<std::string>* written,
                         std::string* err) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *err = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  auto put = [&](const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
      *err = "cannot write " + p.string();
      return false;
    }
    if (written) written->push_back(p.string());
    return true;
  };
  for (std::size_t g = 0; g < split.groups.size(); ++g) {
    const PatchGroup& pg = split.groups[g];
    if (!put(dir / (pg.stem + ".diff"), group_patch(a, rw, pg))) return false;
    if (!put(dir / (pg.stem + ".md"), group_summary(a, r, plan, rw, split, g))) return false;
  }
  return put(dir / "index.md", split_index(a, r, plan, rw, split));
}

}  // namespace cyclefix
