// The rewriter table: what runs, in which order. No registration by static
// initialisers; adding a rewriter means adding a line here.
#include "rewriter.hpp"

#include <algorithm>

#include "source_text.hpp"

namespace cyclefix {

const std::vector<RewriterEntry>& rewriters() {
  static const std::vector<RewriterEntry> table = {
      {"bypass-reexport", bypass_reexport},          // import from the defining module instead (Strategy::Bypass)
      {"late-binding", late_binding},                // import the module, read names through it (Strategy::LateBind)
      {"lazy-import", lazy_import},                  // `lazy ` in front, Python >= 3.15 (Strategy::Lazy)
      {"move-below", move_below},                    // below the definition read back (Strategy::MoveBelow)
      {"move-into-functions", move_into_functions},  // remove the statement, import where used
      {"type-checking", type_checking_entries},      // annotation names under TYPE_CHECKING, quoting
      {"cycle-note", cycle_note},                    // name the loop on each moved import
      {"suppress-hoisting", suppress_hoisting},      // --noqa: stop linters moving it back
  };
  return table;
}

std::vector<std::string> alias_comments(std::string_view text, const std::vector<std::string>& names) {
  std::vector<std::string> out, pending;
  std::size_t import_kw = text.find(" import");
  for (std::size_t p = 0; p < text.size();) {
    std::size_t e = text.find('\n', p);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(p, e - p);
    std::size_t line_begin = p;
    p = e + 1;
    std::size_t hash = line.find('#');
    if (hash == std::string_view::npos) continue;
    std::string comment(line.substr(hash));
    while (!comment.empty() && (comment.back() == '\r' || text::is_space(comment.back()))) comment.pop_back();
    std::string_view code = line.substr(0, hash);
    if (line_begin < import_kw) code = {};  // the `from X import (` line binds nothing itself
    if (import_kw != std::string_view::npos && line_begin <= import_kw && import_kw < line_begin + hash)
      code = line.substr(import_kw - line_begin + 7, hash - (import_kw - line_begin + 7));
    bool any = false, wanted = false;
    for (std::size_t q = 0; q < code.size();) {
      std::size_t comma = code.find(',', q);
      if (comma == std::string_view::npos) comma = code.size();
      std::string_view item = code.substr(q, comma - q);
      q = comma + 1;
      while (!item.empty() && (text::is_space(item.front()) || item.front() == '(' || item.front() == '\\'))
        item.remove_prefix(1);
      while (!item.empty() && (text::is_space(item.back()) || item.back() == ')' || item.back() == '\\'))
        item.remove_suffix(1);
      if (item.empty()) continue;
      std::size_t as = item.rfind(" as ");
      std::string_view bound = as == std::string_view::npos ? item.substr(0, item.find('.')) : item.substr(as + 4);
      while (!bound.empty() && text::is_space(bound.front())) bound.remove_prefix(1);
      any = true;
      wanted = wanted || std::find(names.begin(), names.end(), std::string(bound)) != names.end();
    }
    if (!any) {
      pending.push_back(std::move(comment));
      continue;
    }
    if (wanted) {
      out.insert(out.end(), pending.begin(), pending.end());
      out.push_back(std::move(comment));
    }
    pending.clear();
  }
  return out;
}

// The removal: the statement with its own comments, and one blank line when it
// sat between two, so no double gap is left behind.
Edit statement_removal(std::string_view s, const ImportStatement& st, const std::vector<std::string>& moved,
                       std::size_t width) {
  const std::vector<std::string> bound = st.bound_names();
  std::vector<std::string> staying;
  for (const auto& n : bound)
    if (std::find(moved.begin(), moved.end(), n) == moved.end()) staying.push_back(n);
  if (!staying.empty()) {  // `import pkg.b as pb, json` -> `import json`
    const ImportLayout layout{st.stmt_begin - text::line_start(s, st.stmt_begin), width};
    return {st.stmt_begin, st.stmt_end - st.stmt_begin,
            text::continue_lines(import_subset(st, staying, s, layout), text::newline(s),
                                 text::indentation(s, st.stmt_begin))};
  }
  if (st.shares_line) {
    std::uint32_t e = st.stmt_end;
    while (e < s.size() && text::is_space(s[e])) ++e;
    if (e < s.size() && s[e] == ';') {  // `import a; rest`: take `import a; `
      ++e;
      while (e < s.size() && text::is_space(s[e])) ++e;
      return {st.stmt_begin, e - st.stmt_begin, ""};
    }
    std::uint32_t b = st.stmt_begin;  // `rest; import a`: take `; import a`
    while (b > 0 && text::is_space(s[b - 1])) --b;
    if (b > 0 && s[b - 1] == ';') --b;
    while (b > 0 && text::is_space(s[b - 1])) --b;
    return {b, st.stmt_end - b, ""};
  }
  std::uint32_t b = st.span_begin, e = st.span_end;
  bool at_line_start = b == text::line_start(s, b);
  bool blank_before = b == 0 || text::blank_line(s, b - 1);
  if (at_line_start && blank_before && e < s.size() && e == text::line_start(s, e) && text::blank_line(s, e))
    e = text::next_line(s, e);
  return {b, e - b, ""};
}

std::string import_subset(const ImportStatement& st, const std::vector<std::string>& names, std::string_view source,
                          ImportLayout layout) {
  std::vector<const ImportAlias*> kept;
  for (const ImportAlias& al : st.names)
    if (std::find(names.begin(), names.end(), al.bound_name(st.is_from)) != names.end()) kept.push_back(&al);
  if (kept.size() == st.names.size()) {
    std::string_view text = source.substr(st.stmt_begin, st.stmt_end - st.stmt_begin);
    // A local import cannot be lazy (a SyntaxError in 3.15): the keyword stays behind.
    if (st.has_lazy_keyword && text.substr(0, 4) == "lazy") {
      text.remove_prefix(4);
      while (!text.empty() && (text::is_space(text.front()) || text.front() == '\\' || text.front() == '\r' ||
                               text.front() == '\n'))
        text.remove_prefix(1);
    }
    return std::string(text);
  }
  std::vector<std::string> items;
  for (const ImportAlias* al : kept) items.push_back(al->asname.empty() ? al->name : al->name + " as " + al->asname);
  std::string out;
  if (st.is_from) {
    out = wrap_import("from " + std::string(static_cast<std::size_t>(st.level), '.') + st.module + " import ", items,
                      layout);
  } else {  // `import a, b` cannot take parentheses
    out = "import ";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  }
  // A comment inside a split statement (`a,  # why`) stays with its alias.
  for (const std::string& c : alias_comments(source.substr(st.stmt_begin, st.stmt_end - st.stmt_begin), names))
    out += "  " + c;
  return out;
}

std::string wrap_import(std::string_view head, const std::vector<std::string>& names, ImportLayout layout) {
  std::string one(head);
  for (std::size_t i = 0; i < names.size(); ++i) one += (i ? ", " : "") + names[i];
  if (layout.width == 0 || names.size() < 2 || layout.column + one.size() <= layout.width) return one;
  // Aligned after "(" or, when that takes more lines, a hanging indent.
  auto fill = [&](bool hang) {
    const std::size_t rel = hang ? 4 : head.size() + 1;  // continuation lines' indent past the column
    const std::string pad(rel, ' ');
    std::string out = std::string(head) + "(";
    std::size_t col = layout.column + head.size() + 1;  // where the next character goes
    bool fresh = true;                                   // nothing on this line of names yet
    if (hang) {
      out += "\n" + pad;
      col = layout.column + rel;
    }
    for (const std::string& n : names) {
      const std::size_t need = n.size() + 1;  // the name, then "," or ")"
      if (!fresh && col + 2 + need > layout.width) {
        out += ",\n" + pad;
        col = layout.column + rel;
      } else if (!fresh) {
        out += ", ";
        col += 2;
      }
      out += n;
      col += n.size();
      fresh = false;
    }
    return out + ")";
  };
  std::string aligned = fill(false), hanging = fill(true);
  auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
  return lines(hanging) < lines(aligned) ? hanging : aligned;
}

std::string_view trailing_comment(std::string_view s, const ImportStatement& st) {
  if (st.shares_line) return {};
  std::string_view after = s.substr(st.stmt_end, st.span_end - st.stmt_end);
  while (!after.empty() && (after.back() == '\n' || after.back() == '\r')) after.remove_suffix(1);
  return after.find('#') == std::string_view::npos ? std::string_view() : after;
}

bool is_pragma_comment(std::string_view comment) {
  if (!comment.starts_with('#')) return false;
  comment.remove_prefix(1);
  while (!comment.empty() && text::is_space(comment.front())) comment.remove_prefix(1);
  for (std::string_view p : {"type: ignore", "type:ignore", "noqa", "NOQA", "pylint:", "pyright:", "isort:", "nosec"})
    if (comment.starts_with(p)) return true;
  return false;
}

}  // namespace cyclefix
