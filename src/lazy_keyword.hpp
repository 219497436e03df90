// PEP 810's soft keyword `lazy` (`lazy import x`, `lazy from x import y`,
// Python 3.15), which the tree-sitter-python grammar we compile (0.23.6) does
// not know. Read by blanking: each candidate `lazy` at the start of a statement
// and followed by `import`/`from` is replaced with four spaces (same length, so
// every byte offset, row and column stays), the blanked copy is parsed with
// today's grammar, and a blank is kept only where an import statement starts at
// the keyword that follows it; a candidate inside a string or anything else the
// parse does not confirm is put back and the copy parsed again. Text is always
// read from the original source.
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

struct LazyParse {
  ts::TreePtr tree;
  std::vector<LazyKeyword> keywords;  // sorted by statement_begin
};

// Parses `source`, reading accepted `lazy` keywords as described above. Without
// the bytes "lazy" in the source this is one plain parse.
LazyParse parse_with_lazy_imports(TSParser* parser, std::string_view source);

// The accepted keyword whose statement starts at `statement_begin`, or null.
const LazyKeyword* find_lazy_keyword(const std::vector<LazyKeyword>& keywords, uint32_t statement_begin);

}  // namespace cyclefix
