#include "ts.hpp"

#include <cstdio>
#include <cstdlib>

namespace cyclefix::ts {

ParserPtr make_python_parser() {
  ParserPtr p(ts_parser_new());
  if (!ts_parser_set_language(p.get(), tree_sitter_python())) {
    // The grammar is compiled into the binary; an ABI mismatch is a build bug.
    std::fprintf(stderr, "%s:%d: tree-sitter rejected the Python grammar (ABI mismatch)\n",
                 __FILE__, __LINE__);
    std::abort();
  }
  return p;
}

TreePtr parse(TSParser* parser, std::string_view source) {
  ts_parser_reset(parser);
  TreePtr t(ts_parser_parse_string(parser, nullptr, source.data(),
                                   static_cast<uint32_t>(source.size())));
  if (!t) {
    std::fprintf(stderr, "%s:%d: tree-sitter returned no tree\n", __FILE__, __LINE__);
    std::abort();
  }
  return t;
}

}  // namespace cyclefix::ts
