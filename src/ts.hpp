// RAII owners for the tree-sitter C objects, and the few node helpers every
// syntax-reading stage needs. This is the only header that includes the
// tree-sitter API; other stages see plain data (facts.hpp).
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <string_view>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace cyclefix::ts {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// A parser set to the Python grammar. One per thread: parsers are not shared.
ParserPtr make_python_parser();

// Parses UTF-8 bytes. Never returns null for a configured parser.
TreePtr parse(TSParser* parser, std::string_view source);

inline std::string_view text(TSNode n, std::string_view src) {
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (b > src.size() || e > src.size() || e < b) return {};
  return src.substr(b, e - b);
}
inline std::string_view type(TSNode n) { return ts_node_type(n); }
inline bool is(TSNode n, std::string_view t) { return !ts_node_is_null(n) && type(n) == t; }
inline int line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
inline TSNode field(TSNode n, std::string_view name) {
  return ts_node_child_by_field_name(n, name.data(), static_cast<uint32_t>(name.size()));
}

}  // namespace cyclefix::ts
