// The project's configuration: the [tool.cyclefix] table of a pyproject.toml,
// found by walking up from the first PATH argument or named by --config. Only
// reads and checks it; main decides which values the command line overrides.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cyclefix {

// Each value is set only when the table has the key.
struct ProjectConfig {
  std::filesystem::path file;     // the pyproject.toml read; empty: none found
  std::string display;            // `file` as shown in messages: relative to the cwd when below it
  std::optional<std::vector<std::filesystem::path>> roots;  // already joined to the file's directory
  std::optional<std::vector<std::string>> exclude;          // globs, as --exclude
  std::optional<std::string> target_version;                // "3.x"
  std::optional<bool> only_failing, allow_init_cuts, prefer_lazy, allow_late_imports, extract, note, noqa;
  std::optional<double> time_limit_s;
  // The longest line a written import may have ([tool.cyclefix] line-length,
  // else [tool.ruff] or [tool.black] line-length of the nearest pyproject.toml).
  std::optional<std::size_t> line_length;
  // As ruff's flake8-type-checking settings: full dotted names whose classes
  // or decorated definitions have their annotations read at run time.
  std::optional<std::vector<std::string>> runtime_evaluated_base_classes, runtime_evaluated_decorators;
};

// Parses the text of a pyproject.toml. `display` names the file in messages and
// `dir` is where relative `roots` start. Sets *found to whether there is a
// [tool.cyclefix] table. False with *err ("display:line: message") on invalid
// TOML, an unknown key, or a value of the wrong type.
bool parse_config(std::string_view text, const std::string& display, const std::filesystem::path& dir,
                  ProjectConfig* out, bool* found, std::string* err);

// Reads `file` (named by --config): it must exist and have a [tool.cyclefix] table.
bool load_config(const std::filesystem::path& file, ProjectConfig* out, std::string* err);

// Looks for the nearest pyproject.toml with a [tool.cyclefix] table in `start`
// (its directory, when `start` is not one) and its ancestors, stopping after a
// directory that holds `.git` or at the filesystem root. True with out->file
// empty when there is none; false when a pyproject.toml on the way is invalid.
bool find_config(const std::filesystem::path& start, ProjectConfig* out, std::string* err);

}  // namespace cyclefix
