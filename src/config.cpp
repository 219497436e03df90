#include "config.hpp"

#include <toml++/toml.h>

#include <fstream>
#include <sstream>

namespace cyclefix {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTable = "[tool.cyclefix]";
constexpr std::string_view kKnownKeys =
    "roots, exclude, target-version, only-failing, allow-init-cuts, prefer-lazy, allow-late-imports, extract, time-limit, "
    "note, noqa, line-length, runtime-evaluated-base-classes, runtime-evaluated-decorators";

std::string_view type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

// `file` as shown in messages: relative to the cwd when below it, else absolute.
std::string display_of(const fs::path& file) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec).lexically_normal();
  fs::path cwd = fs::current_path(ec);
  if (ec) return file.string();
  fs::path rel = abs.lexically_relative(cwd);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return abs.string();
}

bool read_file(const fs::path& file, std::string* text) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return !in.bad();
}

// Collects every problem of the table, each "display:line: [tool.cyclefix] ...".
class TableReader {
 public:
  TableReader(const std::string& display, const fs::path& dir, ProjectConfig* out)
      : display_(display), dir_(dir), out_(out) {}

  void read(const toml::table& table) {
    for (auto&& [k, v] : table) {
      const std::string_view key = k.str();
      key_ = std::string(key);
      line_ = v.source().begin.line ? v.source().begin.line : k.source().begin.line;
      if (key == "roots") {
        if (auto list = strings(v)) {
          out_->roots.emplace();
          for (const auto& r : *list) out_->roots->push_back((dir_ / r).lexically_normal());
        }
      } else if (key == "exclude") {
        if (auto list = strings(v)) out_->exclude = std::move(*list);
      } else if (key == "target-version") {
        if (v.is_string()) {
          const std::string s = *v.value<std::string>();
          bool ok = s.size() > 2 && s.rfind("3.", 0) == 0 && s.find_first_not_of("0123456789", 2) == std::string::npos;
          if (ok) out_->target_version = s;
          else problem("'target-version' must look like \"3.9\" (got \"" + s + "\")");
        } else {
          wrong_type(v, "a string such as \"3.9\"");
        }
      } else if (key == "only-failing") {
        flag(v, out_->only_failing);
      } else if (key == "prefer-lazy") {
        flag(v, out_->prefer_lazy);
      } else if (key == "allow-late-imports") {
        flag(v, out_->allow_late_imports);
      } else if (key == "extract") {
        flag(v, out_->extract);
      } else if (key == "allow-init-cuts") {
        flag(v, out_->allow_init_cuts);
      } else if (key == "runtime-evaluated-base-classes") {
        if (auto list = strings(v)) out_->runtime_evaluated_base_classes = std::move(*list);
      } else if (key == "runtime-evaluated-decorators") {
        if (auto list = strings(v)) out_->runtime_evaluated_decorators = std::move(*list);
      } else if (key == "note") {
        flag(v, out_->note);
      } else if (key == "noqa") {
        flag(v, out_->noqa);
      } else if (key == "line-length") {
        if (!v.is_integer()) {
          wrong_type(v, "a number of characters");
        } else if (std::int64_t n = *v.value<std::int64_t>(); n < 0) {
          problem("'line-length' must be 0 (never wrap) or more characters");
        } else {
          out_->line_length = static_cast<std::size_t>(n);
        }
      } else if (key == "time-limit") {
        if (!v.is_number()) {
          wrong_type(v, "a number of seconds");
        } else if (double s = *v.value<double>(); s < 0) {
          problem("'time-limit' must be 0 (no limit) or more seconds");
        } else {
          out_->time_limit_s = s;
        }
      } else {
        line_ = k.source().begin.line;
        problem("unknown key '" + key_ + "' (known keys: " + std::string(kKnownKeys) + ")");
      }
    }
  }

  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void problem(const std::string& message) {
    problems_.push_back(display_ + ":" + std::to_string(line_) + ": " + std::string(kTable) + " " + message);
  }

  void wrong_type(const toml::node& v, std::string_view expected) {
    problem("'" + key_ + "' must be " + std::string(expected) + ", not " + std::string(type_name(v)));
  }

  void flag(const toml::node& v, std::optional<bool>& into) {
    if (v.is_boolean()) into = *v.value<bool>();
    else wrong_type(v, "true or false");
  }

  std::optional<std::vector<std::string>> strings(const toml::node& v) {
    const toml::array* a = v.as_array();
    if (!a) {
      wrong_type(v, "a list of strings");
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (const toml::node& e : *a) {
      if (!e.is_string()) {
        if (e.source().begin.line) line_ = e.source().begin.line;
        problem("'" + key_ + "' must be a list of strings; an element is " + std::string(type_name(e)));
        return std::nullopt;
      }
      out.push_back(*e.value<std::string>());
    }
    return out;
  }

  std::string display_;
  fs::path dir_;
  ProjectConfig* out_;
  std::string key_;
  std::uint32_t line_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace

bool parse_config(std::string_view text, const std::string& display, const fs::path& dir, ProjectConfig* out,
                  bool* found, std::string* err) {
  *found = false;
  toml::table doc;
  try {
    doc = toml::parse(text, display);
  } catch (const toml::parse_error& e) {
    *err = display + ":" + std::to_string(e.source().begin.line) + ": invalid TOML: " + std::string(e.description());
    return false;
  }
  const toml::table* tool = doc["tool"].as_table();
  const toml::node* node = tool ? tool->get("cyclefix") : nullptr;
  // The formatter's line length, which [tool.cyclefix] line-length overrides.
  for (const char* formatter : {"black", "ruff"})
    if (auto n = tool ? (*tool)[formatter]["line-length"].value<std::int64_t>() : std::nullopt; n && *n > 0)
      out->line_length = static_cast<std::size_t>(*n);
  if (!node) return true;
  *found = true;
  const toml::table* table = node->as_table();
  if (!table) {
    *err = display + ":" + std::to_string(node->source().begin.line) + ": " + std::string(kTable) +
           " must be a table, not " + std::string(type_name(*node));
    return false;
  }
  TableReader reader(display, dir, out);
  reader.read(*table);
  if (!reader.problems().empty()) {
    err->clear();
    for (const auto& p : reader.problems()) *err += (err->empty() ? "" : "\n") + p;
    return false;
  }
  return true;
}

bool load_config(const fs::path& file, ProjectConfig* out, std::string* err) {
  const std::string display = display_of(file);
  std::string text;
  if (!read_file(file, &text)) {
    *err = display + ": cannot read the configuration file";
    return false;
  }
  std::error_code ec;
  const fs::path abs = fs::absolute(file, ec).lexically_normal();
  bool found = false;
  ProjectConfig c;
  if (!parse_config(text, display, abs.parent_path(), &c, &found, err)) return false;
  if (!found) {
    *err = display + ": no " + std::string(kTable) + " table";
    return false;
  }
  c.file = file;
  c.display = display;
  *out = std::move(c);
  return true;
}

bool find_config(const fs::path& start, ProjectConfig* out, std::string* err) {
  std::error_code ec;
  fs::path dir = fs::absolute(start.empty() ? fs::path(".") : start, ec).lexically_normal();
  if (dir.has_relative_path() && dir.filename().empty()) dir = dir.parent_path();  // "a/b/" -> "a/b"
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  std::optional<std::size_t> line_length;  // the nearest formatter's
  for (;; dir = dir.parent_path()) {
    const fs::path candidate = dir / "pyproject.toml";
    if (fs::is_regular_file(candidate, ec)) {
      const std::string display = display_of(candidate);
      std::string text;
      if (!read_file(candidate, &text)) {
        *err = display + ": cannot read";
        return false;
      }
      bool found = false;
      ProjectConfig c;
      if (!parse_config(text, display, dir, &c, &found, err)) return false;
      if (!line_length) line_length = c.line_length;
      if (found) {
        c.file = candidate;
        c.display = display;
        if (!c.line_length) c.line_length = line_length;
        *out = std::move(c);
        return true;
      }
    }
    // The repository's top ends the walk: a config above it belongs to something else.
    if (fs::exists(dir / ".git", ec) || dir == dir.parent_path()) break;
  }
  *out = ProjectConfig{};
  out->line_length = line_length;  // a formatter's, from a pyproject.toml without [tool.cyclefix]
  return true;
}

}  // namespace cyclefix
