// Small questions about a file's bytes that the rewriters and their driver ask:
// where a line starts and ends, its indentation, the file's newline. Bytes
// only; no syntax.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cyclefix::text {

// Offset of the first byte of the line holding `pos`.
inline std::uint32_t line_start(std::string_view s, std::uint32_t pos) {
  while (pos > 0 && s[pos - 1] != '\n') --pos;
  return pos;
}

// Offset just past the newline ending the line holding `pos` (s.size() on the last line).
inline std::uint32_t next_line(std::string_view s, std::uint32_t pos) {
  auto nl = s.find('\n', pos);
  return nl == std::string_view::npos ? static_cast<std::uint32_t>(s.size()) : static_cast<std::uint32_t>(nl + 1);
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Only spaces and tabs in [from, to).
inline bool blank(std::string_view s, std::uint32_t from, std::uint32_t to) {
  for (std::uint32_t i = from; i < to; ++i)
    if (!is_space(s[i])) return false;
  return true;
}

// The line holding `pos` has nothing but whitespace (and its newline).
inline bool blank_line(std::string_view s, std::uint32_t pos) {
  std::uint32_t b = line_start(s, pos), e = next_line(s, pos);
  for (std::uint32_t i = b; i < e; ++i)
    if (!is_space(s[i]) && s[i] != '\n' && s[i] != '\r') return false;
  return true;
}

// The leading whitespace of the line holding `pos`.
inline std::string indentation(std::string_view s, std::uint32_t pos) {
  std::uint32_t b = line_start(s, pos), e = b;
  while (e < s.size() && is_space(s[e])) ++e;
  return std::string(s.substr(b, e - b));
}

// Text this program wrote with '\n' between lines, continuation lines counted
// from the first line's column, put in place: each '\n' becomes `nl` and the
// first line's `indent`.
inline std::string continue_lines(std::string_view lines, std::string_view nl, std::string_view indent) {
  std::string out;
  for (std::size_t cut; (cut = lines.find('\n')) != std::string_view::npos; lines.remove_prefix(cut + 1)) {
    out += lines.substr(0, cut);
    out += nl;
    out += indent;
  }
  out += lines;
  return out;
}

// "\r\n" when the file's first line ends that way, else "\n".
inline std::string newline(std::string_view s) {
  auto nl = s.find('\n');
  return nl != std::string_view::npos && nl > 0 && s[nl - 1] == '\r' ? "\r\n" : "\n";
}

// One level of indentation as the file writes it: a tab when its first
// indented line starts with one, else four spaces.
inline std::string indent_unit(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\t') return "\t";
    if (s[i] == ' ') return "    ";
    auto nl = s.find('\n', i);
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
  return "    ";
}

}  // namespace cyclefix::text
