// --prefer-lazy: which function-local imports become module-level `lazy`
// imports (PEP 810). A local import is there to avoid an import cycle when the
// module it imports reaches the importer back in the import-time graph: a
// module-level eager import would close that loop. A module-level lazy import
// does not, as long as nothing reads its names while the modules load. The
// rules (docs/cli.md, "--prefer-lazy"), each a reason when it fails:
//
//   - the import is a statement of its own, directly in the function's body:
//     not under an if/for/while/with, not in a try (whose handler may be the
//     point), not sharing a line;
//   - the function does not run at import time (reading the name there would
//     reify the import while the cycle loads);
//   - every name it binds means nothing else in the file: not defined or
//     imported at module level (an import of the same name under
//     `if TYPE_CHECKING:` is fine), not declared `global`, not a parameter,
//     not bound again in the function (FunctionInfo::bound_otherwise(), or
//     another import there), and not written anywhere outside the
//     functions that import it (where the module-level name would change what
//     the code means: a builtin shadowed locally, say);
//   - the function keeps a statement once the import is gone.
//
// Local imports of one module in one file merge into one statement (names in
// order of first appearance); two that bind one name to different things stay.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "cut_plan.hpp"
#include "reachability.hpp"
#include "source_reader.hpp"
#include "source_text.hpp"

namespace cyclefix {

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whole-word occurrences of `word` in `s`, as offsets.
std::vector<std::size_t> occurrences(std::string_view s, std::string_view word) {
  std::vector<std::size_t> out;
  for (std::size_t p = s.find(word); p != std::string_view::npos; p = s.find(word, p + 1)) {
    const bool starts = p == 0 || !identifier_char(s[p - 1]);
    const bool ends = p + word.size() == s.size() || !identifier_char(s[p + word.size()]);
    if (starts && ends) out.push_back(p);
  }
  return out;
}

// Which bytes of `s` are code: not in a comment, not in a string literal (an
// f-string's replacement fields count as string: a miss there only keeps a
// name's meaning check from seeing a use, and the names checked are not bound
// at module level, so such a use was a NameError or a builtin already).
std::vector<char> code_mask(std::string_view s) {
  std::vector<char> code(s.size(), 1);
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') code[i++] = 0;
      continue;
    }
    if (c != '"' && c != '\'') {
      ++i;
      continue;
    }
    const bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
    const std::size_t open = triple ? 3 : 1;
    std::size_t j = i + open;
    for (; j < s.size(); ++j) {
      if (s[j] == '\\') {
        ++j;
        continue;
      }
      if (!triple && s[j] == '\n') break;
      if (s[j] == c && (!triple || (j + 2 < s.size() && s[j + 1] == c && s[j + 2] == c))) {
        j += open;
        break;
      }
    }
    j = std::min(j, s.size());
    for (std::size_t k = i; k < j; ++k) code[k] = 0;
    i = j;
  }
  return code;
}

int line_of(std::string_view s, std::size_t at) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

struct Local {
  int import = -1;
  int function = -1;
};

}  // namespace

std::vector<LazyHoist> plan_lazy_hoists(const Analysis& a, std::vector<KeptLocal>* kept) {
  std::vector<LazyHoist> out;
  std::vector<std::vector<std::size_t>> in(a.modules.size());
  for (std::size_t e = 0; e < a.graph.edges().size(); ++e) in[a.graph.edges()[e].to].push_back(e);
  for (std::size_t fi = 0; fi < a.files.size(); ++fi) {
    const FileAnalysis& fa = a.files[fi];
    if (!fa.analysed || !fa.rewritable) continue;
    const ModuleFacts& facts = fa.facts;
    const int file = static_cast<int>(fi);
    // The loop a module-level eager import of `target` would close: importer ->
    // target -> ... -> importer, by a backward search from the importer.
    std::map<ModuleId, std::size_t> via;  // module -> edge towards the importer
    {
      std::vector<ModuleId> todo = {fa.module};
      via[fa.module] = SIZE_MAX;
      while (!todo.empty()) {
        ModuleId v = todo.back();
        todo.pop_back();
        for (std::size_t e : in[v]) {
          ModuleId u = a.graph.edges()[e].from;
          if (via.emplace(u, e).second) todo.push_back(u);
        }
      }
    }
    auto loop_from = [&](ModuleId target) {
      std::vector<ModuleId> loop = {fa.module};
      for (ModuleId m = target; loop.size() <= a.modules.size(); m = a.graph.edges()[via[m]].to) {
        loop.push_back(m);
        if (m == fa.module) break;
      }
      return loop;
    };
    // Module-level names: definitions and imports outside TYPE_CHECKING.
    std::set<std::string> module_names;
    for (const Definition& d : facts.definitions) module_names.insert(d.name);
    std::set<std::string> globals;
    for (const FunctionInfo& f : facts.functions) globals.insert(f.globals.begin(), f.globals.end());
    std::map<std::pair<std::string, int>, std::vector<Local>> groups;  // (absolute module, is_from) -> locals
    bool read = false;  // the text, once a local import is worth a look
    SourceText source;
    std::string_view src;
    std::vector<char> code;
    for (std::size_t ii = 0; ii < facts.imports.size(); ++ii) {
      const ImportStatement& st = facts.imports[ii];
      if (st.context != ImportContext::FunctionBody) continue;
      const ResolvedImport& r = fa.resolved[ii];
      if (!r.first_party || st.star || r.absolute_module.empty()) continue;
      std::optional<ModuleId> back;
      for (const ImportTarget& t : r.targets)
        if (t.module != fa.module && via.count(t.module)) back = t.module;
      if (!back) continue;  // local for another reason (start-up cost, an optional dependency)
      if (!read) {
        read = true;
        source = read_source(fa.source.path);
        if (!source.ok || std::hash<std::string_view>{}(source.bytes) != fa.content_hash) break;
        src = source.bytes;
        code = code_mask(src);
      }
      auto keep = [&](std::string why) { kept->push_back({file, static_cast<int>(ii), std::move(why)}); };
      const int fn = function_index(facts, st.scope);
      if (fn < 0) {
        keep("not directly in a function body");
        continue;
      }
      const FunctionInfo& f = facts.functions[fn];
      const Event* ev = nullptr;
      for (const Event& e : f.events)
        if (e.kind == Event::Kind::Import && e.import == static_cast<int>(ii)) ev = &e;
      if (!ev || ev->try_end > 0 || ev->guarded) {
        keep("in a try in " + f.qualified_name + "() (its handler may be the point)");
        continue;
      }
      if (ev->conditional || ev->guard >= 0) {
        keep("under an if/for/while/with in " + f.qualified_name + "()");
        continue;
      }
      if (st.shares_line) {
        keep("shares its line with another statement");
        continue;
      }
      if (a.reach.body_runs(file, fn)) {
        keep(f.qualified_name + "() runs at import time: reading the name there would import while the cycle loads");
        continue;
      }
      std::string why;
      for (const std::string& n : st.bound_names()) {
        if (module_names.count(n)) why = "'" + n + "' is also bound at module level";
        else if (globals.count(n)) why = "'" + n + "' is declared global in a function";
        else if (f.has_param(n))
          why = "'" + n + "' is a parameter of " + f.qualified_name + "()";
        if (!why.empty()) break;
        for (std::size_t k = 0; k < facts.imports.size() && why.empty(); ++k) {
          const ImportStatement& o = facts.imports[k];
          if (k == ii || o.context == ImportContext::FunctionBody || o.context == ImportContext::TypeChecking) continue;
          for (const std::string& b : o.bound_names())
            if (b == n) why = "'" + n + "' is also imported at module level (line " + std::to_string(o.line) + ")";
        }
        if (!why.empty()) break;
        // Bound again in the function by something else than an import (facts:
        // FunctionInfo::bound_otherwise()), or by another import of it there.
        if (f.bound_otherwise(n)) {
          why = "'" + n + "' is bound again in " + f.qualified_name + "()";
          break;
        }
        for (std::size_t k = 0; k < facts.imports.size() && why.empty(); ++k) {
          const ImportStatement& o = facts.imports[k];
          if (k == ii || o.context != ImportContext::FunctionBody || o.scope != st.scope) continue;
          for (const std::string& b : o.bound_names())
            if (b == n && o.text != st.text)
              why = "'" + n + "' is imported again in " + f.qualified_name + "() (line " + std::to_string(o.line) + ")";
        }
        if (!why.empty()) break;
      }
      if (!why.empty()) {
        keep(why);
        continue;
      }
      // The function keeps a statement once the import is gone.
      {
        std::uint32_t from = f.docstring_end ? f.docstring_end : f.body_begin;
        bool other = false;
        for (std::uint32_t p = from; p < f.end && !other;) {
          if (p >= st.span_begin && p < st.span_end) {
            p = st.span_end;
            continue;
          }
          const char c = src[p];
          if (c == '#') {
            while (p < f.end && src[p] != '\n') ++p;
            continue;
          }
          other = !(text::is_space(c) || c == '\n' || c == '\r');
          ++p;
        }
        if (!other) {
          keep(f.qualified_name + "() has no other statement");
          continue;
        }
      }
      groups[{r.absolute_module + "|" + std::to_string(st.level) + "|" + st.module, st.is_from ? 1 : 0}].push_back(
          {static_cast<int>(ii), fn});
    }
    // One statement per group; a name bound by two groups (to different things) keeps both local.
    std::map<std::string, int> binders;  // bound name -> groups binding it
    // A name that occurs (as code) outside the functions importing it, and
    // outside TYPE_CHECKING blocks, would change meaning at module level (a
    // builtin shadowed locally, say): the imports binding it stay local. Until
    // nothing changes, since each one left out narrows where the others may occur.
    for (auto& [key, locals] : groups) {
      for (bool changed = true; changed && !locals.empty();) {
        changed = false;
        for (std::size_t i = 0; i < locals.size(); ++i) {
          std::string why;
          for (const std::string& n : facts.imports[locals[i].import].bound_names()) {
            std::vector<std::pair<std::uint32_t, std::uint32_t>> inside;
            for (const Local& l : locals) {
              const auto bound = facts.imports[l.import].bound_names();
              if (std::find(bound.begin(), bound.end(), n) != bound.end())
                inside.emplace_back(facts.functions[l.function].begin, facts.functions[l.function].end);
            }
            for (const TypeCheckingBlock& b : facts.type_checking_blocks) inside.emplace_back(b.begin, b.body_end);
            // A function where the name is local (bound there, not `global`)
            // never sees the module-level one, nor do the functions nested in it.
            for (const FunctionInfo& g : facts.functions)
              if (std::binary_search(g.locals.begin(), g.locals.end(), n) &&
                  !std::count(g.globals.begin(), g.globals.end(), n))
                inside.emplace_back(g.begin, g.end);
            for (std::size_t p : occurrences(src, n)) {
              // `x.name` is an attribute, and `from a.name import b` a module path: not the name.
              if (!code[p] || (p > 0 && src[p - 1] == '.') || std::any_of(inside.begin(), inside.end(),
                                          [&](auto r) { return p >= r.first && p < r.second; }))
                continue;
              why = "'" + n + "' also occurs outside the functions that import it (line " +
                    std::to_string(line_of(src, p)) + ")";
              break;
            }
            if (!why.empty()) break;
          }
          if (why.empty()) continue;
          kept->push_back({file, locals[i].import, why});
          locals.erase(locals.begin() + static_cast<std::ptrdiff_t>(i));
          changed = true;
          break;
        }
      }
    }
    std::erase_if(groups, [](const auto& g) { return g.second.empty(); });
    for (const auto& [key, locals] : groups) {
      std::set<std::string> names;
      for (const Local& l : locals)
        for (const std::string& n : facts.imports[l.import].bound_names()) names.insert(n);
      for (const std::string& n : names) ++binders[n];
    }
    for (const auto& [key, locals] : groups) {
      const ImportStatement& first = facts.imports[locals.front().import];
      std::vector<std::pair<std::string, std::string>> aliases;  // (name, asname), first appearance
      std::map<std::string, std::string> bound_to;              // bound name -> alias text
      std::string clash;
      for (const Local& l : locals)
        for (const ImportAlias& al : facts.imports[l.import].names) {
          const std::string text = al.name + (al.asname.empty() ? "" : " as " + al.asname);
          const std::string bound = al.bound_name(first.is_from);
          auto [it, fresh] = bound_to.emplace(bound, text);
          if (!fresh && it->second != text) clash = bound;
          if (fresh) aliases.emplace_back(al.name, al.asname);
        }
      for (const auto& [b, t] : bound_to)
        if (binders[b] > 1) clash = b;
      if (!clash.empty()) {
        for (const Local& l : locals)
          kept->push_back({file, l.import, "'" + clash + "' is imported as different things in different functions"});
        continue;
      }
      LazyHoist h;
      h.file = file;
      std::string names;
      for (const auto& [n, as] : aliases) names += (names.empty() ? "" : ", ") + n + (as.empty() ? "" : " as " + as);
      h.statement = first.is_from ? "lazy from " + std::string(static_cast<std::size_t>(first.level), '.') +
                                        first.module + " import " + names
                                  : "lazy import " + names;
      std::set<std::string> fns;
      std::optional<ModuleId> target;
      for (const Local& l : locals) {
        h.imports.push_back(l.import);
        fns.insert(facts.functions[l.function].qualified_name);
        for (const ImportTarget& t : fa.resolved[l.import].targets)
          if (!target && t.module != fa.module && via.count(t.module)) target = t.module;
      }
      std::sort(h.imports.begin(), h.imports.end());
      // The same names imported under TYPE_CHECKING for annotations: the lazy
      // import serves them now (3.14+ evaluates annotations on access).
      for (std::size_t k = 0; k < facts.imports.size(); ++k) {
        const ImportStatement& o = facts.imports[k];
        if (o.context != ImportContext::TypeChecking || o.star || o.is_from != first.is_from ||
            fa.resolved[k].absolute_module != fa.resolved[h.imports.front()].absolute_module)
          continue;
        const bool same = std::all_of(o.names.begin(), o.names.end(), [&](const ImportAlias& al) {
          auto it = bound_to.find(al.bound_name(o.is_from));
          return it != bound_to.end() && it->second == al.name + (al.asname.empty() ? "" : " as " + al.asname);
        });
        if (same) h.type_checking.push_back(static_cast<int>(k));
      }
      h.functions.assign(fns.begin(), fns.end());
      if (target) h.loop = loop_from(*target);
      out.push_back(std::move(h));
    }
  }
  std::sort(kept->begin(), kept->end(), [&](const KeptLocal& x, const KeptLocal& y) {
    return std::make_pair(x.file, a.files[x.file].facts.imports[x.import].line) <
           std::make_pair(y.file, a.files[y.file].facts.imports[y.import].line);
  });
  std::sort(out.begin(), out.end(), [&](const LazyHoist& x, const LazyHoist& y) {
    return std::make_pair(x.file, x.imports.front()) < std::make_pair(y.file, y.imports.front());
  });
  return out;
}

}  // namespace cyclefix
