#include "lazy_keyword.hpp"

#include <algorithm>
#include <string>

namespace cyclefix {
namespace {

bool ident_byte(unsigned char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// Spaces, tabs, form feeds and backslash line continuations from `i`.
std::size_t skip_blanks(std::string_view s, std::size_t i) {
  for (;;) {
    if (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f')) {
      ++i;
    } else if (i + 1 < s.size() && s[i] == '\\' && s[i + 1] == '\n') {
      i += 2;
    } else if (i + 2 < s.size() && s[i] == '\\' && s[i + 1] == '\r' && s[i + 2] == '\n') {
      i += 3;
    } else {
      return i;
    }
  }
}

bool keyword_at(std::string_view s, std::size_t i, std::string_view kw) {
  return s.substr(i, kw.size()) == kw && (i + kw.size() >= s.size() || !ident_byte(static_cast<unsigned char>(s[i + kw.size()])));
}

// `lazy` at `i` opens a statement (line start after indentation, or after `;`
// or the `:` of a one-line compound statement) and is followed by blanks and
// `import` or `from`. Returns the keyword's offset, or 0 when not a candidate.
std::size_t candidate_keyword(std::string_view s, std::size_t i) {
  std::size_t b = i;
  while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\f')) --b;
  if (b > 0 && s[b - 1] != '\n' && s[b - 1] != '\r' && s[b - 1] != ';' && s[b - 1] != ':') return 0;
  if (i + 4 < s.size() && ident_byte(static_cast<unsigned char>(s[i + 4]))) return 0;
  std::size_t k = skip_blanks(s, i + 4);
  if (k == i + 4) return 0;
  if (keyword_at(s, k, "import") || keyword_at(s, k, "from")) return k;
  return 0;
}

// An import statement (`from __future__` too) starts at byte `at`.
bool import_starts_at(TSNode root, uint32_t at) {
  TSNode n = ts_node_descendant_for_byte_range(root, at, at + 1);
  while (!ts_node_is_null(n) && ts_node_start_byte(n) == at) {
    std::string_view t = ts::type(n);
    if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement") return true;
    n = ts_node_parent(n);
  }
  return false;
}

}  // namespace

LazyParse parse_with_lazy_imports(TSParser* parser, std::string_view source) {
  LazyParse out;
  if (source.find("lazy") == std::string_view::npos) {
    out.tree = ts::parse(parser, source);
    return out;
  }
  std::vector<LazyKeyword> candidates;
  for (std::size_t i = source.find("lazy"); i != std::string_view::npos; i = source.find("lazy", i + 4))
    if (std::size_t k = candidate_keyword(source, i))
      candidates.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(k)});
  if (candidates.empty()) {
    out.tree = ts::parse(parser, source);
    return out;
  }
  // Not four spaces: a statement that starts further right than `lazy` did is
  // read by the grammar's scanner as part of the block above it when that block
  // is indented (`except ImportError:` ... then `lazy import x` at column 0
  // became `     import x` inside the handler). `0;` keeps a statement at the
  // keyword's column, an expression statement that binds and reads nothing.
  static constexpr char kFiller[] = "0;  ";
  std::string blanked(source);
  for (const LazyKeyword& c : candidates) blanked.replace(c.lazy_begin, 4, kFiller, 4);
  // Each round puts back the candidates the parse did not confirm; putting one
  // back can only change the parse around it, so this ends (at most one round
  // per candidate, usually one or two in all).
  for (;;) {
    out.tree = ts::parse(parser, blanked);
    TSNode root = ts_tree_root_node(out.tree.get());
    auto rejected = std::stable_partition(candidates.begin(), candidates.end(), [&](const LazyKeyword& c) {
      return import_starts_at(root, c.statement_begin);
    });
    if (rejected == candidates.end()) break;
    for (auto it = rejected; it != candidates.end(); ++it) blanked.replace(it->lazy_begin, 4, "lazy");
    candidates.erase(rejected, candidates.end());
    if (candidates.empty()) {
      out.tree = ts::parse(parser, source);
      break;
    }
  }
  out.keywords = std::move(candidates);
  return out;
}

const LazyKeyword* find_lazy_keyword(const std::vector<LazyKeyword>& keywords, uint32_t statement_begin) {
  auto it = std::lower_bound(keywords.begin(), keywords.end(), statement_begin,
                             [](const LazyKeyword& k, uint32_t b) { return k.statement_begin < b; });
  return it != keywords.end() && it->statement_begin == statement_begin ? &*it : nullptr;
}

}  // namespace cyclefix
