#include "codeowners.hpp"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace cyclefix {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> components(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto slash = s.find('/');
    std::string_view part = s.substr(0, slash);
    if (!part.empty()) out.emplace_back(part);
    if (slash == std::string_view::npos) break;
    s.remove_prefix(slash + 1);
  }
  return out;
}

// One component against one pattern component; `[` is literal (GitHub has no ranges).
bool component_matches(const std::string& pattern, const std::string& name) {
  std::string p;
  for (char c : pattern) {
    if (c == '[') p += '\\';
    p += c;
  }
  return fnmatch(p.c_str(), name.c_str(), 0) == 0;
}

bool match_from(const std::vector<std::string>& pat, std::size_t i, const std::vector<std::string>& path,
                std::size_t j, std::size_t n) {
  if (i == pat.size()) return j == n;
  if (pat[i] == "**") {
    for (std::size_t k = j; k <= n; ++k)
      if (match_from(pat, i + 1, path, k, n)) return true;
    return false;
  }
  return j < n && component_matches(pat[i], path[j]) && match_from(pat, i + 1, path, j + 1, n);
}

}  // namespace

std::vector<CodeOwnersRule> parse_codeowners(std::string_view text) {
  std::vector<CodeOwnersRule> rules;
  int line_no = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    // Tokens split at unescaped blanks; `\#` and `\ ` are literal.
    std::vector<std::string> tokens;
    std::string cur;
    bool in_token = false;
    for (std::size_t k = 0; k < line.size(); ++k) {
      char c = line[k];
      if (c == '\\' && k + 1 < line.size() && (line[k + 1] == '#' || line[k + 1] == ' ')) {
        cur += line[++k];
        in_token = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        if (in_token) tokens.push_back(std::move(cur));
        cur.clear();
        in_token = false;
      } else if (c == '#' && !in_token) {
        break;  // a comment: the whole line, or the rest of it
      } else {
        cur += c;
        in_token = true;
      }
    }
    if (in_token) tokens.push_back(std::move(cur));
    if (tokens.empty()) continue;
    CodeOwnersRule r;
    r.pattern = tokens.front();
    r.owners.assign(tokens.begin() + 1, tokens.end());
    r.line = line_no;
    rules.push_back(std::move(r));
  }
  return rules;
}

bool codeowners_matches(std::string_view pattern, std::string_view relative) {
  std::string p(pattern);
  const bool dir_only = !p.empty() && p.back() == '/';
  while (!p.empty() && p.back() == '/') p.pop_back();
  bool anchored = !p.empty() && p.front() == '/';
  if (!anchored) anchored = p.find('/') != std::string::npos;
  std::vector<std::string> pat = components(p);
  if (pat.empty()) return true;  // "/": the whole repository
  if (!anchored) pat.insert(pat.begin(), "**");
  const bool files_only = pat.back() == "*";  // `docs/*`: not the files of docs' subdirectories
  std::vector<std::string> path = components(relative);
  // A pattern matching a directory matches every file below it.
  for (std::size_t n = 1; n <= path.size(); ++n) {
    const bool whole = n == path.size();
    if (whole && dir_only) continue;
    if (!whole && files_only) continue;
    if (match_from(pat, 0, path, 0, n)) return true;
  }
  return false;
}

std::vector<std::string> CodeOwners::owners_of(std::string_view relative) const {
  for (auto it = rules.rbegin(); it != rules.rend(); ++it)
    if (codeowners_matches(it->pattern, relative)) return it->owners;
  return {};
}

std::vector<std::string> CodeOwners::owners_of_file(const fs::path& path) const {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path base = fs::weakly_canonical(root, ec);
  fs::path rel = abs.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") return {};
  return owners_of(rel.generic_string());
}

std::optional<CodeOwners> find_codeowners(const fs::path& start, std::string* err) {
  std::error_code ec;
  fs::path from = fs::absolute(start, ec);
  fs::path root = from;
  for (fs::path d = from;; d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) {
      root = d;
      break;
    }
    if (d.parent_path() == d || d.empty()) break;
  }
  for (const char* where : {".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}) {
    fs::path f = root / where;
    if (!fs::is_regular_file(f, ec)) continue;
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      if (err) *err = "cannot read " + f.string();
      return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    CodeOwners c;
    c.file = f;
    c.root = root;
    c.rules = parse_codeowners(ss.str());
    return c;
  }
  return std::nullopt;
}

}  // namespace cyclefix
