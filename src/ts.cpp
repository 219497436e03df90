#include "ts.hpp"

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>

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

std::vector<std::string> identifiers(std::string_view source, bool* clean) {
  ParserPtr parser = make_python_parser();
  TreePtr tree = parse(parser.get(), source);
  TSNode root = ts_tree_root_node(tree.get());
  if (clean) *clean = !ts_node_has_error(root);
  std::vector<std::string> out;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    if (std::strcmp(ts_node_type(n), "identifier") == 0) {
      const char* field = ts_tree_cursor_current_field_name(&cursor);
      TSNode parent = ts_node_parent(n);
      const char* ptype = ts_node_is_null(parent) ? "" : ts_node_type(parent);
      const bool attribute_name = field && std::strcmp(field, "attribute") == 0 && std::strcmp(ptype, "attribute") == 0;
      const bool keyword_name = field && std::strcmp(field, "name") == 0 && std::strcmp(ptype, "keyword_argument") == 0;
      if (!attribute_name && !keyword_name) out.emplace_back(text(n, source));
    }
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace cyclefix::ts
