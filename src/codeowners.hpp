// CODEOWNERS files, with GitHub's semantics: gitignore-like patterns relative
// to the repository root, the last matching line wins, a line without owners
// leaves its files unowned. Used by `--split-by owner` (split_patches.hpp).
// GitHub supports neither `!` negation nor `[...]` ranges; neither do we.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cyclefix {

struct CodeOwnersRule {
  std::string pattern;
  std::vector<std::string> owners;  // empty: explicitly unowned
  int line = 0;
};

struct CodeOwners {
  std::filesystem::path file;  // where the rules were read
  std::filesystem::path root;  // the directory patterns are relative to (the repository root)
  std::vector<CodeOwnersRule> rules;

  // The owners of `relative` ('/'-separated, relative to `root`): those of the
  // last matching rule; empty when no rule matches or that rule names none.
  std::vector<std::string> owners_of(std::string_view relative) const;
  // The same for a path on disk; empty when it lies outside `root`.
  std::vector<std::string> owners_of_file(const std::filesystem::path& path) const;
};

// Rules of a CODEOWNERS text: blank lines and `#` comments skipped, `\#` and
// `\ ` unescaped in patterns.
std::vector<CodeOwnersRule> parse_codeowners(std::string_view text);

// Whether a CODEOWNERS pattern matches a file path relative to the root: `*`
// and `?` within one path component, `**` across components; a pattern without
// a slash (other than a trailing one) matches at any depth; a leading or inner
// slash anchors it at the root; a pattern naming a directory matches everything
// below it, except that `dir/*` matches only the files directly in `dir`; a
// trailing slash matches directories only.
bool codeowners_matches(std::string_view pattern, std::string_view relative);

// The CODEOWNERS of the nearest ancestor of `start` (itself included) holding
// `.git`, or of `start` when none does; in GitHub's order `.github/CODEOWNERS`,
// `CODEOWNERS`, `docs/CODEOWNERS`. nullopt when there is none; `*err` is set
// when one exists but cannot be read.
std::optional<CodeOwners> find_codeowners(const std::filesystem::path& start, std::string* err);

}  // namespace cyclefix
