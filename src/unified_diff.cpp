#include "unified_diff.hpp"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <vector>

namespace cyclefix {

namespace {

std::vector<std::string> lines_of(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto nl = s.find('\n');
    std::size_t n = nl == std::string_view::npos ? s.size() : nl + 1;
    out.emplace_back(s.substr(0, n));
    s.remove_prefix(n);
  }
  return out;
}

void put_line(std::string& out, char mark, const std::string& line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

std::string range(std::size_t start, std::size_t count) {
  // Unified format: an empty range names the line before it.
  if (count == 0) return std::to_string(start ? start - 1 : 0) + ",0";
  if (count == 1) return std::to_string(start);
  return std::to_string(start) + "," + std::to_string(count);
}

// The edit script from `a` to `b` (dtl), one op per line: ' ', '-', '+'.
struct Op {
  char mark;
  const std::string* line;
};
std::vector<Op> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.compose();
  std::vector<Op> ops;
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    char mark = info.type == dtl::SES_COMMON ? ' ' : info.type == dtl::SES_DELETE ? '-' : '+';
    const std::string* p = mark == '+' ? &b[static_cast<std::size_t>(info.afterIdx - 1)]
                                       : &a[static_cast<std::size_t>(info.beforeIdx - 1)];
    ops.push_back({mark, p});
  }
  return ops;
}

LineCounts count(const std::vector<Op>& ops) {
  LineCounts n;
  for (const Op& op : ops) {
    n.added += op.mark == '+';
    n.removed += op.mark == '-';
  }
  return n;
}

}  // namespace

LineCounts changed_lines(std::string_view before, std::string_view after) {
  if (before == after) return {};
  return count(edit_script(lines_of(before), lines_of(after)));
}

std::string unified_diff(std::string_view before, std::string_view after, const std::string& path, int context,
                         LineCounts* counts) {
  if (counts) *counts = {};
  if (before == after) return {};
  std::vector<std::string> a = lines_of(before), b = lines_of(after);
  std::vector<Op> ops = edit_script(a, b);
  if (counts) *counts = count(ops);
  // Within each run of changed lines, deletions first, as diff(1) prints them.
  for (std::size_t k = 0; k < ops.size();) {
    if (ops[k].mark == ' ') {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < ops.size() && ops[e].mark != ' ') ++e;
    std::stable_partition(ops.begin() + static_cast<long>(k), ops.begin() + static_cast<long>(e),
                          [](const Op& op) { return op.mark == '-'; });
    k = e;
  }
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  const std::size_t n = ops.size();
  const std::size_t ctx = static_cast<std::size_t>(context);
  std::size_t i = 0;
  std::size_t a_line = 1, b_line = 1;  // line numbers at ops[i]
  // Line numbers at the start of each op.
  std::vector<std::size_t> a_at(n + 1), b_at(n + 1);
  for (std::size_t k = 0; k < n; ++k) {
    a_at[k] = a_line;
    b_at[k] = b_line;
    if (ops[k].mark != '+') ++a_line;
    if (ops[k].mark != '-') ++b_line;
  }
  a_at[n] = a_line;
  b_at[n] = b_line;
  while (i < n) {
    while (i < n && ops[i].mark == ' ') ++i;
    if (i == n) break;
    std::size_t start = i >= ctx ? i - ctx : 0;
    // Extend over changes separated by at most 2*ctx common lines.
    std::size_t end = i;
    while (true) {
      while (end < n && ops[end].mark != ' ') ++end;
      std::size_t common = end;
      while (common < n && ops[common].mark == ' ') ++common;
      if (common < n && common - end <= 2 * ctx) {
        end = common;
        continue;
      }
      end = std::min(n, end + ctx);
      break;
    }
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t k = start; k < end; ++k) {
      a_count += ops[k].mark != '+';
      b_count += ops[k].mark != '-';
    }
    out += "@@ -" + range(a_at[start], a_count) + " +" + range(b_at[start], b_count) + " @@\n";
    for (std::size_t k = start; k < end; ++k) put_line(out, ops[k].mark, *ops[k].line);
    i = end;
  }
  return out;
}

std::string new_file_diff(std::string_view text, const std::string& path) {
  std::string d = unified_diff("", text, path);
  const std::string old_header = "--- a/" + path + "\n";
  if (d.starts_with(old_header)) d.replace(0, old_header.size(), "--- /dev/null\n");
  return d;
}

}  // namespace cyclefix
