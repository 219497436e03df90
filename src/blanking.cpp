#include "blanking.hpp"

#include <algorithm>
#include <initializer_list>
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

// A node of one of `types` starts at byte `at`.
bool node_starts_at(TSNode root, uint32_t at, std::initializer_list<std::string_view> types) {
  TSNode n = ts_node_descendant_for_byte_range(root, at, at + 1);
  while (!ts_node_is_null(n) && ts_node_start_byte(n) == at) {
    if (std::find(types.begin(), types.end(), ts::type(n)) != types.end()) return true;
    n = ts_node_parent(n);
  }
  return false;
}

// Byte `at` is inside a string's text or a comment: a replacement there
// changes no structure, so a rejected one needs no second parse.
bool in_text(TSNode root, uint32_t at) {
  std::string_view t = ts::type(ts_node_descendant_for_byte_range(root, at, at + 1));
  return t == "string_content" || t == "comment";
}

bool string_quote(char c) { return c == '\'' || c == '"'; }

// PEP 750: `t` (or `T`) at `i` is the template prefix of a string literal
// (`t"`, `rt"`, `tr"`, any case) not glued to an identifier. Returns the
// prefix's first byte, or -1.
long template_prefix(std::string_view s, std::size_t i) {
  auto raw = [](char c) { return c == 'r' || c == 'R'; };
  std::size_t after = i + 1, begin = i;
  if (after < s.size() && raw(s[after])) ++after;
  else if (begin > 0 && raw(s[begin - 1])) --begin;
  if (after >= s.size() || !string_quote(s[after])) return -1;
  if (begin > 0 && ident_byte(static_cast<unsigned char>(s[begin - 1]))) return -1;
  return static_cast<long>(begin);
}

// A format spec that starts with `=` in an f-string replacement field
// (`f"{x:=}"`, `f"{x:=^9}"`: fill/align `=`), which the grammar reads as the
// walrus operator: `:=` at `i` whose field opens on the same line after an
// f-string prefix, with no bracket, quote or brace between the `{` and the
// `:` (an unparenthesised `:=` there is always a format spec; a real walrus
// in a replacement field needs parentheses). The `=` becomes `<` (another
// alignment), confirmed where a format_specifier starts at the `:`.
bool format_spec_walrus(std::string_view s, std::size_t i) {
  std::size_t b = i;
  while (b > 0 && std::string_view("{}()[]\"'\n\\").find(s[b - 1]) == std::string_view::npos) --b;
  if (b == 0 || s[b - 1] != '{' || b == i) return false;
  if (b >= 2 && s[b - 2] == '{') return false;  // `{{` is a literal brace
  const std::size_t line = s.rfind('\n', b - 1);
  for (std::size_t q = (line == std::string_view::npos ? 0 : line + 1); q + 1 < b; ++q)
    if (string_quote(s[q + 1]) &&
        (s[q] == 'f' || s[q] == 'F' || ((s[q] == 'r' || s[q] == 'R') && q > 0 && (s[q - 1] == 'f' || s[q - 1] == 'F'))))
      return true;
  return false;
}

// One replacement: `len` bytes at `at` become `filler`; confirmed when a node
// of the construct's type starts at `confirm_at`.
struct Blank {
  enum class Kind { Lazy, TemplatePrefix, FormatSpec };
  uint32_t at = 0;
  uint32_t confirm_at = 0;
  Kind kind = Kind::Lazy;
  bool lazy() const { return kind == Kind::Lazy; }
};

}  // namespace

BlankedParse parse_blanked(TSParser* parser, std::string_view source) {
  BlankedParse out;
  std::vector<Blank> blanks;
  for (std::size_t i = source.find("lazy"); i != std::string_view::npos; i = source.find("lazy", i + 4))
    if (std::size_t k = candidate_keyword(source, i))
      blanks.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(k), Blank::Kind::Lazy});
  // From each quote back to its `t`: quotes are far fewer than t's, and a
  // find_first_of per `t` was 2% of the facts stage.
  auto template_letter = [](char c) { return c == 't' || c == 'T'; };
  for (std::size_t q = 1; q < source.size(); ++q) {
    if (!string_quote(source[q])) continue;
    std::size_t i = q - 1;
    if (!template_letter(source[i])) {
      if (q < 2 || (source[i] != 'r' && source[i] != 'R') || !template_letter(source[q - 2])) continue;
      i = q - 2;
    }
    if (long b = template_prefix(source, i); b >= 0)
      blanks.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(b), Blank::Kind::TemplatePrefix});
  }
  for (std::size_t i = source.find(":="); i != std::string_view::npos; i = source.find(":=", i + 2))
    if (format_spec_walrus(source, i))
      blanks.push_back({static_cast<uint32_t>(i + 1), static_cast<uint32_t>(i), Blank::Kind::FormatSpec});
  if (blanks.empty()) {
    out.tree = ts::parse(parser, source);
    return out;
  }
  // Not four spaces for `lazy`: a statement that starts further right than
  // `lazy` did is read by the grammar's scanner as part of the block above it
  // when that block is indented (`except ImportError:` ... then `lazy import x`
  // at column 0 became `     import x` inside the handler). `0;` keeps a
  // statement at the keyword's column, an expression statement that binds and
  // reads nothing.
  static constexpr char kLazyFiller[] = "0;  ";
  auto put = [&](std::string& text, const Blank& b) {
    switch (b.kind) {
      case Blank::Kind::Lazy: text.replace(b.at, 4, kLazyFiller, 4); break;
      case Blank::Kind::TemplatePrefix: text[b.at] = text[b.at] == 't' ? 'f' : 'F'; break;
      case Blank::Kind::FormatSpec: text[b.at] = '<'; break;
    }
  };
  auto put_back = [&](std::string& text, const Blank& b) {
    if (b.lazy()) text.replace(b.at, 4, "lazy");
    else text[b.at] = source[b.at];
  };
  std::string blanked(source);
  for (const Blank& b : blanks) put(blanked, b);
  // Each round puts back the replacements the parse did not confirm; putting
  // one back can only change the parse around it, so this ends (at most one
  // round per replacement, usually one in all: those inside strings and
  // comments change nothing and need no new parse).
  for (;;) {
    out.tree = ts::parse(parser, blanked);
    TSNode root = ts_tree_root_node(out.tree.get());
    auto rejected = std::stable_partition(blanks.begin(), blanks.end(), [&](const Blank& b) {
      switch (b.kind) {
        case Blank::Kind::Lazy:
          return node_starts_at(root, b.confirm_at,
                                {"import_statement", "import_from_statement", "future_import_statement"});
        case Blank::Kind::TemplatePrefix: return node_starts_at(root, b.confirm_at, {"string"});
        case Blank::Kind::FormatSpec: return node_starts_at(root, b.confirm_at, {"format_specifier"});
      }
      return false;
    });
    bool reparse = false;
    for (auto it = rejected; it != blanks.end(); ++it) {
      put_back(blanked, *it);
      reparse = reparse || !in_text(root, it->at);
    }
    blanks.erase(rejected, blanks.end());
    if (!reparse) break;
  }
  for (const Blank& b : blanks)
    if (b.lazy()) out.keywords.push_back({b.at, b.confirm_at});
  return out;
}

const LazyKeyword* find_lazy_keyword(const std::vector<LazyKeyword>& keywords, uint32_t statement_begin) {
  auto it = std::lower_bound(keywords.begin(), keywords.end(), statement_begin,
                             [](const LazyKeyword& k, uint32_t b) { return k.statement_begin < b; });
  return it != keywords.end() && it->statement_begin == statement_begin ? &*it : nullptr;
}

}  // namespace cyclefix
