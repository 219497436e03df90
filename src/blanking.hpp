// Python syntax newer than the tree-sitter-python grammar we compile (0.23.6),
// read by blanking: a few bytes are replaced with others of the same length
// (so every byte offset, row and column stays), the copy is parsed with
// today's grammar, and a replacement is kept only where the parse confirms
// the construct it stands for; the others are put back. Text is always read
// from the original source.
//
// - PEP 810's soft keyword `lazy` (`lazy import x`, `lazy from x import y`,
//   Python 3.15): a candidate `lazy` at the start of a statement and followed
//   by `import`/`from` becomes `0;` and two spaces (not four spaces, which
//   would indent the statement: see blanking.cpp), confirmed where an import
//   statement starts at the keyword that follows.
// - PEP 750's template strings (`t"..."`, `rt'...'`, Python 3.14): the `t`
//   prefix becomes `f` (same interpolation syntax), confirmed where a string
//   starts at the prefix.
// - A format spec starting with `=` (`f"{x:=}"`, `f"{x:=^9}"`, fill/align
//   `=`), which tree-sitter-python 0.23.6 reads as a walrus: the `=` becomes
//   `<`, confirmed where a format_specifier starts at the `:`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ts.hpp"

namespace cyclefix {

// One accepted `lazy`: the keyword's first byte and the first byte of the
// `import`/`from` statement it prefixes.
struct LazyKeyword {
  uint32_t lazy_begin = 0;
  uint32_t statement_begin = 0;
};

struct BlankedParse {
  ts::TreePtr tree;
  std::vector<LazyKeyword> keywords;  // sorted by statement_begin
};

// Parses `source`, reading the constructs above. Without the bytes "lazy",
// `t'`/`t"` (either case) and `:=` in the source this is one plain parse.
BlankedParse parse_blanked(TSParser* parser, std::string_view source);

// The accepted keyword whose statement starts at `statement_begin`, or null.
const LazyKeyword* find_lazy_keyword(const std::vector<LazyKeyword>& keywords, uint32_t statement_begin);

}  // namespace cyclefix
