#include "rewrite.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "source_reader.hpp"
#include "source_text.hpp"

namespace cyclefix {

namespace {

// The lines of a local import at `indent`, each ending in `nl`. Continuation
// lines of a multi-line statement keep their own layout, shifted by `indent`.
std::string render(const LocalImport& li, const std::string& indent, const std::string& nl) {
  std::string out;
  for (const auto& c : li.comments) out += indent + c + nl;
  std::string_view st = li.statement;
  bool first = true;
  while (true) {
    auto cut = st.find('\n');
    std::string_view line = st.substr(0, cut);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!first) out += nl;
    if (first || !line.empty()) out += indent;
    out += line;
    first = false;
    if (cut == std::string_view::npos) break;
    st.remove_prefix(cut + 1);
  }
  out += li.trailing + nl;
  return out;
}

// Edits that put `li` at the top of its function's body: after the docstring,
// or before the first statement; a one-line body (`def f(): return x`) is
// split onto its own lines first.
bool place(std::string_view s, const ModuleFacts& facts, const LocalImport& li, const std::string& nl,
           const std::string& unit, std::vector<Edit>& out, std::string* error) {
  const FunctionInfo& fn = facts.functions[li.function];
  const std::uint32_t first = fn.body_begin;
  const bool own_line = text::blank(s, text::line_start(s, first), first);
  // Identical edits for every import into this body, so the set merges them.
  std::string indent = text::indentation(s, first);
  if (!own_line) {  // `def f(): body`: the body moves onto its own line first
    std::uint32_t colon = first;
    while (colon > 0 && text::is_space(s[colon - 1])) --colon;
    if (colon == 0 || s[colon - 1] != ':') {
      *error = "cannot find where the body of " + fn.qualified_name + "() starts";
      return false;
    }
    --colon;
    indent += unit;
    out.push_back({colon, first - colon, ":" + nl + indent});
  }
  std::uint32_t at = first;
  if (fn.docstring_end) {
    std::uint32_t p = fn.docstring_end;
    while (p < s.size() && text::is_space(s[p])) ++p;
    if (p < s.size() && s[p] == ';') {  // `"""Doc."""; rest`: the rest moves onto its own line
      std::uint32_t q = p + 1;
      while (q < s.size() && text::is_space(s[q])) ++q;
      if (q < s.size() && s[q] != '\n' && s[q] != '\r' && s[q] != '#') {
        out.push_back({fn.docstring_end, q - fn.docstring_end, nl + indent});
        at = q;
      } else {
        *error = "the docstring of " + fn.qualified_name + "() ends with a stray ';'";
        return false;
      }
    } else if (own_line) {  // after the docstring's line
      std::string t = render(li, indent, nl);
      std::uint32_t e = text::next_line(s, fn.docstring_end);
      if (e == s.size() && (s.empty() || s.back() != '\n')) t = nl + t;
      out.push_back({e, 0, std::move(t)});
      return true;
    }
  }
  if (at == first && own_line) {
    out.push_back({text::line_start(s, first), 0, render(li, indent, nl)});
    return true;
  }
  out.push_back({at, 0, render(li, indent, nl).substr(indent.size()) + indent});
  return true;
}

// The file's one `if TYPE_CHECKING:` block gets every change's entries: an
// existing module-level block is extended; otherwise a block (and the
// TYPE_CHECKING name, from an existing typing import where there is one) goes
// after the last module-level import that stays.
bool place_type_checking(std::string_view s, const ModuleFacts& facts, const std::vector<std::string>& entries,
                         const std::set<int>& cut_imports, const std::string& nl, const std::string& unit,
                         EditSet& edits, std::string* error) {
  std::set<std::string> present;
  for (const ImportStatement& st : facts.imports)
    if (st.context == ImportContext::TypeChecking) present.insert(st.text);
  std::vector<LocalImport> wanted;
  std::set<std::string> seen;
  for (const auto& e : entries) {
    if (present.count(e) || !seen.insert(e).second) continue;
    LocalImport li;
    li.statement = e;
    wanted.push_back(std::move(li));
  }
  if (wanted.empty()) return true;

  for (const TypeCheckingBlock& b : facts.type_checking_blocks) {
    if (!text::blank(s, text::line_start(s, b.body_begin), b.body_begin)) continue;  // one-line block
    std::string indent = text::indentation(s, b.body_begin);
    std::string t;
    for (const auto& li : wanted) t += render(li, indent, nl);
    std::uint32_t at = text::next_line(s, b.body_end);
    if (at == s.size() && (s.empty() || s.back() != '\n')) t = nl + t;
    return edits.add({at, 0, std::move(t)}, error);
  }

  // The name to test: an imported TYPE_CHECKING, else typing.TYPE_CHECKING through
  // `import typing`, else one added to an existing `from typing import ...`, else
  // a new import.
  std::string test;
  const ImportStatement* from_typing = nullptr;
  std::uint32_t anchor = 0;
  bool have_anchor = false;
  for (std::size_t i = 0; i < facts.imports.size(); ++i) {
    const ImportStatement& st = facts.imports[i];
    if (st.context != ImportContext::ModuleLevel) continue;
    if (!cut_imports.count(static_cast<int>(i)) && st.stmt_end >= anchor) {
      anchor = st.stmt_end;
      have_anchor = true;
    }
    if (st.star || st.level != 0) continue;
    if (st.is_from && st.module == "typing") {
      for (const auto& al : st.names)
        if (al.name == "TYPE_CHECKING" && test.empty()) test = al.bound_name(true);
      if (!from_typing) from_typing = &st;
    } else if (!st.is_from) {
      for (const auto& al : st.names)
        if (al.name == "typing" && test.empty()) test = al.bound_name(false) + ".TYPE_CHECKING";
    }
  }
  std::string header;
  if (test.empty() && from_typing && !from_typing->shares_line) {
    // Insert before the first imported name: `from typing import TYPE_CHECKING, Optional`.
    std::string_view st = s.substr(from_typing->stmt_begin, from_typing->stmt_end - from_typing->stmt_begin);
    std::size_t k = st.find(" import");
    if (k != std::string_view::npos) {
      k += 7;
      while (k < st.size() && (text::is_space(st[k]) || st[k] == '(' || st[k] == '\\')) ++k;
      bool newline_first = false;
      while (k < st.size() && (text::is_space(st[k]) || st[k] == '\r' || st[k] == '\n')) {
        newline_first |= st[k] == '\n';
        ++k;
      }
      std::uint32_t at = from_typing->stmt_begin + static_cast<std::uint32_t>(k);
      std::string ins = newline_first ? "TYPE_CHECKING," + nl + text::indentation(s, at) : "TYPE_CHECKING, ";
      if (!edits.add({at, 0, ins}, error)) return false;
      test = "TYPE_CHECKING";
    }
  }
  if (test.empty()) {
    test = "TYPE_CHECKING";
    header = "from typing import TYPE_CHECKING" + nl + nl;
  }
  std::string block = "if " + test + ":" + nl;
  for (const auto& li : wanted) block += render(li, unit, nl);
  std::uint32_t at;
  std::string t;
  if (have_anchor) {
    at = text::next_line(s, anchor);
    t = nl + header + block;
    if (at == s.size() && (s.empty() || s.back() != '\n')) t = nl + t;
  } else {
    // No import stays: where the first cut statement was (the removal starts there).
    // A blank line follows the block unless the removal leaves one there
    // already (it takes the blank line after the statement only when one
    // precedes it too).
    const ImportStatement* first = nullptr;
    for (int i : cut_imports)
      if (!first || facts.imports[i].span_begin < first->span_begin) first = &facts.imports[i];
    if (!first) {
      *error = "no place for the block";
      return false;
    }
    at = first->span_begin;
    const std::uint32_t after = first->span_end;
    const bool blank_after = after < s.size() && text::blank_line(s, after);
    const bool taken = blank_after && (at == 0 || text::blank_line(s, at - 1));
    t = header + block + (blank_after && !taken ? "" : nl);
  }
  return edits.add({at, 0, std::move(t)}, error);
}

// Runs of blank lines that an edit touches are cut to two (PEP 8's most), and
// to none at the start and the end of the file: removing statements must not
// leave gaps.
std::string tidy_blank_lines(const std::string& s, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& changed) {
  static constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (s.compare(0, bom.size(), bom) == 0) {  // the file starts after its byte order mark
    std::vector<std::pair<std::uint32_t, std::uint32_t>> shifted;
    for (auto [b, e] : changed) shifted.push_back({b < 3 ? 0 : b - 3, e < 3 ? 0 : e - 3});
    return std::string(bom) + tidy_blank_lines(s.substr(bom.size()), shifted);
  }
  std::string out;
  out.reserve(s.size());
  std::uint32_t p = 0;
  while (p < s.size()) {
    std::uint32_t e = text::next_line(s, p);
    if (!text::blank_line(s, p) || e == p) {
      out.append(s, p, e - p);
      p = e;
      continue;
    }
    std::uint32_t run_end = p;
    std::vector<std::uint32_t> starts;
    while (run_end < s.size() && text::blank_line(s, run_end) && s.find('\n', run_end) != std::string::npos) {
      starts.push_back(run_end);
      run_end = text::next_line(s, run_end);
    }
    if (starts.empty()) {  // a last line of spaces without newline
      out.append(s, p, s.size() - p);
      break;
    }
    bool touched = std::any_of(changed.begin(), changed.end(),
                               [&](auto r) { return r.first <= run_end && r.second >= p; });
    std::size_t keep = starts.size();
    if (touched) keep = p == 0 || run_end == s.size() ? 0 : std::min<std::size_t>(keep, 2);
    for (std::size_t k = 0; k < keep; ++k)
      out.append(s, starts[k], (k + 1 < starts.size() ? starts[k + 1] : run_end) - starts[k]);
    p = run_end;
  }
  return out;
}

}  // namespace

RewriteResult rewrite(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                      const RewriteOptions& options, const std::vector<std::string>* sources) {
  RewriteResult result;
  std::map<int, std::vector<int>> by_file;  // file -> cuts, in plan order (file, line)
  for (int c : plan.cuts) by_file[plan.candidates[c].file].push_back(c);
  std::map<int, std::vector<const LazyHoist*>> hoists_of;  // --prefer-lazy
  for (const LazyHoist& h : plan.hoists) {
    hoists_of[h.file].push_back(&h);
    by_file[h.file];
  }

  auto read = [&](int file) {
    const FileAnalysis& fa = a.files[file];
    SourceText src;
    if (sources) {
      src.bytes = (*sources)[file];
      src.ok = true;
    } else {
      src = read_source(fa.source.path);
    }
    if (src.ok && std::hash<std::string_view>{}(src.bytes) != fa.content_hash) src.ok = false;
    return src;
  };
  // Extractions first: the defining files' edits and the new modules. A cut
  // whose extraction cannot be made is not made in its importer either.
  std::map<int, std::vector<int>> extract_cuts;  // defining file -> its Extract cuts
  for (int c : plan.cuts)
    if (plan.candidates[c].strategy == Strategy::Extract) extract_cuts[plan.candidates[c].extract.file].push_back(c);
  // Defining file -> its edits, checked here (before any importer is
  // rewritten), and its bytes, read once.
  std::map<int, EditSet> extract_edits;
  std::map<int, SourceText> defining_sources;
  std::set<int> not_extracted;
  for (const auto& [file, cuts] : extract_cuts) {
    SourceText src = read(file);
    std::string error = src.ok ? "" : "changed since it was analysed";
    CreatedFile created;
    std::vector<Edit> edits;
    EditSet checked;
    if (error.empty() && extract_module(a, cycles, plan, cuts, src.bytes, edits, created, &error))
      checked.add_all(edits, &error);
    if (!error.empty()) {
      result.problems.push_back({a.files[file].source.display, 0, "definitions not moved to a new module: " + error});
      not_extracted.insert(cuts.begin(), cuts.end());
      continue;
    }
    extract_edits[file] = std::move(checked);
    defining_sources[file] = std::move(src);
    by_file[file];
    result.created.push_back(std::move(created));
  }

  for (auto& [file, cuts] : by_file) {
    const FileAnalysis& fa = a.files[file];
    const std::string& display = fa.source.display;
    auto known = defining_sources.find(file);
    SourceText src = known != defining_sources.end() ? std::move(known->second) : read(file);
    if (!src.ok) {
      result.problems.push_back({display, 0, "changed since it was analysed; not rewritten"});
      continue;
    }
    const std::string_view s = src.bytes;
    const std::string nl = text::newline(s), unit = text::indent_unit(s);
    FileRewrite fr;
    fr.file = file;
    // A defining file starts with its extraction's edits: a conflict then
    // refuses the file's own cut, not the extraction its importers rely on.
    EditSet edits;
    if (auto x = extract_edits.find(file); x != extract_edits.end()) {
      edits = std::move(x->second);
      fr.extracted_for = extract_cuts[file];
    }
    std::vector<std::string> type_checking;
    std::set<int> cut_imports, functions;
    std::map<int, std::vector<std::string>> last_note;  // function -> comments of its last local import
    for (int c : cuts) {
      const CandidateStatement& cand = plan.candidates[c];
      const int line = fa.facts.imports[cand.import].line;
      if (not_extracted.count(c)) {
        result.problems.push_back({display, line, "not changed: its extraction was not made (see above)"});
        continue;
      }
      AtomicChange change;
      change.cut = c;
      RewriteInput in{a, cycles, cand, fa, s, options};
      for (const RewriterEntry& r : rewriters()) {
        r.run(in, change);
        if (!change.error.empty()) break;
      }
      std::string error = change.error;
      std::vector<Edit> all = change.edits;
      std::map<int, std::vector<std::string>> noted = last_note;
      for (LocalImport li : change.local_imports) {
        // Two imports into one body from the same loop: the note once.
        if (!li.comments.empty() && noted[li.function] == li.comments) li.comments.clear();
        else noted[li.function] = li.comments;
        if (error.empty()) place(s, fa.facts, li, nl, unit, all, &error);
      }
      if (error.empty() && !edits.add_all(all, &error)) error = "conflicts with another change: " + error;
      if (!error.empty()) {
        result.problems.push_back({display, line, "not deferred: " + error});
        continue;
      }
      last_note = std::move(noted);
      fr.cuts.push_back(c);
      // Statements that leave module level entirely (not `import json` kept from `import pkg.b, json`).
      if (cand.strategy == Strategy::Defer && cand.names.size() == fa.facts.imports[cand.import].bound_names().size())
        cut_imports.insert(cand.import);
      fr.local_imports += change.local_imports.size();
      for (const auto& li : change.local_imports) functions.insert(li.function);
      for (const auto& t : change.type_checking) type_checking.push_back(t);
      fr.quoted_annotations += change.quoted_annotations;
    }
    if (!hoists_of[file].empty()) {
      std::vector<Edit> all;
      std::string error;
      if (hoist_lazy(a, fa, s, hoists_of[file], options, all, &error) && !edits.add_all(all, &error))
        error = "conflicts with another change: " + error;
      if (!error.empty()) {
        result.problems.push_back(
            {display, fa.facts.imports[hoists_of[file].front()->imports.front()].line, "not made lazy: " + error});
      } else {
        fr.lazy_hoists = hoists_of[file].size();
        for (const LazyHoist* h : hoists_of[file]) fr.hoisted_imports += h->imports.size();
      }
    }
    if (fr.cuts.empty() && !fr.lazy_hoists && fr.extracted_for.empty()) continue;
    std::string error;
    EditSet with_block = edits;
    if (!place_type_checking(s, fa.facts, type_checking, cut_imports, nl, unit, with_block, &error)) {
      result.problems.push_back({display, 0, "TYPE_CHECKING block not added (" + error + "); file not rewritten"});
      continue;
    }
    fr.type_checking_entries = std::set<std::string>(type_checking.begin(), type_checking.end()).size();
    fr.functions = functions.size();
    fr.before = std::string(s);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> changed;
    fr.after = tidy_blank_lines(with_block.apply(s, &changed), changed);
    ModuleFacts again = collect_facts(fr.after);
    if (!again.syntax_problems.empty()) {
      const SyntaxProblem& p = again.syntax_problems.front();
      result.problems.push_back({display, p.line,
                                 "the rewritten file would not parse (" + p.message + "); file not rewritten"});
      continue;
    }
    result.cuts_applied += fr.cuts.size();
    result.files.push_back(std::move(fr));
  }
  std::sort(result.files.begin(), result.files.end(), [&](const FileRewrite& x, const FileRewrite& y) {
    return a.files[x.file].source.display < a.files[y.file].source.display;
  });
  std::sort(result.created.begin(), result.created.end(),
            [](const CreatedFile& x, const CreatedFile& y) { return x.display < y.display; });
  return result;
}

Analysis analysis_after(Analysis& a, const RewriteResult& r, unsigned jobs, bool keep_for_reports) {
  // Most of an analysis is its files' facts, and after the rewrite `a` only
  // needs their import statements: the facts move instead of being copied, so
  // that the two analyses never both hold them (1.4 GB on 50,000 files). What
  // build_graph() computes again (module index, graph, reachability, resolved
  // imports) is not copied at all. `a` keeps its module index, and its graph
  // and a copy of the import statements when reports still read them (on
  // 50,000 files the statements are 250 MB).
  std::vector<FileAnalysis> files = std::move(a.files);
  ModuleIndex modules = std::move(a.modules);
  ImportGraph graph = std::move(a.graph);
  a.reach = {};
  Analysis after = a;  // the small rest: discovery, diagnostics, totals
  a.files = std::move(files);
  a.modules = std::move(modules);
  if (keep_for_reports) a.graph = std::move(graph);
  after.files.resize(a.files.size());
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    FileAnalysis& from = a.files[i];
    FileAnalysis& to = after.files[i];
    ModuleFacts facts = std::exchange(from.facts, {});
    std::vector<ResolvedImport> resolved = std::exchange(from.resolved, {});
    from.import_runs = {};
    to = from;  // the small rest: source and flags
    to.resolved = std::move(resolved);  // recomputed in place by build_graph
    if (keep_for_reports) from.facts.imports = facts.imports;
    from.facts.future_annotations = facts.future_annotations;
    from.facts.lines = facts.lines;
    to.facts = std::move(facts);
  }
  for (const FileRewrite& fr : r.files) {
    FileAnalysis& fa = after.files[fr.file];
    fa.facts = collect_facts(fr.after);
    fa.rewritable = fa.facts.syntax_problems.empty();
    fa.content_hash = std::hash<std::string_view>{}(fr.after);
  }
  for (const CreatedFile& c : r.created) {
    // A new module joins the tree.
    FileAnalysis fa;
    fa.source.path = c.path;
    fa.source.display = c.display;
    fa.source.module = c.module;
    fa.analysed = true;
    fa.facts = collect_facts(c.text);
    fa.rewritable = fa.facts.syntax_problems.empty();
    fa.bytes = c.text.size();
    fa.content_hash = std::hash<std::string_view>{}(c.text);
    after.files.push_back(std::move(fa));
  }
  build_graph(after, jobs);
  return after;
}

}  // namespace cyclefix
