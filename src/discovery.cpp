// Discovery: PATH arguments -> Python files -> source roots -> dotted module
// names. Knows the file system, not syntax. A file that is left out gets a
// Diagnostic unless the user asked for it (--exclude) or it sits in a
// directory that is never source (VCS metadata, caches, virtualenvs).
#include "discovery.hpp"

#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <tuple>

namespace cyclefix {

namespace fs = std::filesystem;
using Severity = Diagnostic::Severity;

namespace {

constexpr std::string_view kKeywords[] = {
    "False",  "None",   "True",    "and",      "as",       "assert", "async",  "await",  "break",
    "class",  "continue", "def",   "del",      "elif",     "else",   "except", "finally", "for",
    "from",   "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
    "or",     "pass",   "raise",   "return",   "try",      "while",  "with",   "yield"};

// Directories that never hold first-party source: VCS metadata, caches,
// dependencies, build output, virtualenvs.
constexpr std::string_view kSkippedDirs[] = {
    ".git", ".hg",  ".svn", "__pycache__", "node_modules", "build", "dist",
    ".tox", ".nox", ".mypy_cache", ".venv", "venv"};

// Files next to a `src` directory that mark it as a project's src layout.
constexpr std::string_view kProjectMarkers[] = {"pyproject.toml", "setup.py", "setup.cfg"};

bool is_keyword(std::string_view name) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords);
}

std::string errno_text(int err) { return std::generic_category().message(err); }

bool is_plain_file(const fs::path& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool has_init(const fs::path& dir) { return is_plain_file(dir / "__init__.py"); }

bool is_py_name(std::string_view name) { return name.size() > 3 && name.ends_with(".py"); }

// A compiled extension module: `_ext.so`, `_ext.cpython-311-x86_64-linux-gnu.so`,
// `_ext.abi3.so`, `_ext.pyd`, `_ext.cp311-win_amd64.pyd`. Its module name is the
// part before the first dot.
bool is_extension_name(std::string_view name) {
  const auto dot = name.find('.');
  return dot != std::string_view::npos && dot > 0 && (name.ends_with(".so") || name.ends_with(".pyd"));
}

// Lexically normal, without a trailing separator ("pkg/" -> "pkg", "./" -> ".").
fs::path normal(const fs::path& p) {
  fs::path n = p.lexically_normal();
  if (n.has_relative_path() && n.filename().empty()) n = n.parent_path();
  return n;
}

// `inner` equals `outer` or lies below it; both absolute and normal.
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto mismatch = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return mismatch.first == outer.end();
}

struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
  auto operator<=>(const DirId&) const = default;
};

std::string not_importable(std::string_view name) {
  std::string m = "not importable: '" + std::string(name) + "' is not a Python identifier";
  if (is_keyword(name)) m += " (it is a keyword)";
  return m;
}

struct Found {
  fs::path path;       // as found
  fs::path abs;        // absolute, normal (lexical: symlinked directories stay in the path)
  fs::path walk_root;  // the PATH argument it was found under, absolute and normal
};

struct Candidate {
  fs::path path;
  fs::path abs;
  std::string display;
  fs::path root;                  // absolute, normal
  std::vector<std::string> dirs;  // package directories from the root down
  std::string module;
  bool is_package = false;
};

class Discoverer {
 public:
  explicit Discoverer(const DiscoveryOptions& options) : options_(options) {
    std::error_code ec;
    fs::path cwd = fs::current_path(ec);
    if (!ec) cwd_ = normal(cwd);
    for (std::string pattern : options.excludes) {
      // "./tests/" means what "tests" means.
      while (pattern.size() > 1 && pattern.back() == '/') pattern.pop_back();
      if (pattern.starts_with("./")) pattern.erase(0, 2);
      if (!pattern.empty()) excludes_.push_back(std::move(pattern));
    }
  }

  Discovery run() {
    set_up_explicit_roots();
    std::vector<fs::path> paths = options_.paths;
    if (paths.empty()) paths.emplace_back(".");
    for (const fs::path& p : paths) walk_argument(p.empty() ? fs::path(".") : p);

    std::map<std::string, std::vector<Candidate>> by_module;
    for (const Found& f : found_) {
      if (auto c = place(f)) by_module[c->module].push_back(std::move(*c));
    }
    std::vector<Candidate> chosen;
    for (auto& [module, group] : by_module) chosen.push_back(choose(group));
    Discovery d = finish(chosen);
    add_extensions(d, by_module);
    return d;
  }

 private:
  // Shown to users: relative to the cwd when below it, else as given.
  std::string display(const fs::path& p) const {
    const fs::path n = normal(p);
    if (!cwd_.empty()) {
      const fs::path abs = n.is_absolute() ? n : normal(cwd_ / n);
      if (abs == cwd_) return ".";
      if (is_within(abs, cwd_)) return abs.lexically_relative(cwd_).generic_string();
    }
    std::string s = n.generic_string();
    return s.empty() ? "." : s;
  }

  fs::path absolute(const fs::path& p) const {
    return p.is_absolute() || cwd_.empty() ? normal(p) : normal(cwd_ / p);
  }

  void report(const fs::path& p, std::string message, Severity severity = Severity::Error) {
    diagnostics_.push_back({display(p), 0, std::move(message), severity});
  }

  // --exclude: fnmatch(3) without flags, so `*` also matches '/', against the
  // path relative to the walked PATH argument ("pkg/tests", "pkg/*_pb2.py")
  // and against the single component ("tests", "*_pb2.py"). Directories are
  // tested as they are entered, so every component of a path gets its turn.
  bool excluded(const std::string& rel, const std::string& name) const {
    for (const std::string& pattern : excludes_) {
      if (::fnmatch(pattern.c_str(), rel.c_str(), 0) == 0) return true;
      if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
    }
    return false;
  }

  // A file argument has no walked directory: match its display path (so the
  // components above the cwd, like "/home", never count).
  bool excluded_file_argument(const fs::path& p) const {
    const std::string rel = display(p);
    for (const fs::path& part : fs::path(rel)) {
      if (excluded(rel, part.string())) return true;
    }
    return false;
  }

  bool skipped_dir(const fs::path& dir, std::string_view name) const {
    if (std::find(std::begin(kSkippedDirs), std::end(kSkippedDirs), name) != std::end(kSkippedDirs)) {
      // `build` and `dist` are also real package names (pypa's `build`):
      // with an __init__.py they are source, not output.
      return !((name == "build" || name == "dist") && has_init(dir));
    }
    return is_plain_file(dir / "pyvenv.cfg");  // a virtualenv
  }

  void add_file(const fs::path& path, const fs::path& walk_root) {
    found_.push_back({path, absolute(path), walk_root});
  }

  void walk_argument(const fs::path& arg) {
    const fs::path path = normal(arg);
    struct stat lst;
    if (::lstat(path.c_str(), &lst) != 0) {
      const int err = errno;
      report(path, err == ENOENT ? "no such file or directory" : "cannot access: " + errno_text(err));
      return;
    }
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      report(path, unresolvable_link(path, errno));
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      std::error_code ec;
      fs::path canonical = fs::canonical(path, ec);
      if (ec) canonical = absolute(path);
      std::vector<Ancestor> stack{{DirId{st.st_dev, st.st_ino}, path}};
      const Walk walk{absolute(path), canonical};
      walk_dir(walk, path, "", stack);
    } else if (!S_ISREG(st.st_mode)) {
      report(path, "not a regular file or directory; skipped");
    } else if (!is_py_name(path.filename().string())) {
      report(path, "not a Python file (no .py suffix); skipped", Severity::Warning);
    } else if (!excluded_file_argument(path)) {
      add_file(path, absolute(path));
    }
  }

  std::string unresolvable_link(const fs::path& link, int err) const {
    if (err == ELOOP) return "symlink loop (" + errno_text(err) + "); skipped";
    if (err == ENOENT) {
      std::error_code ec;
      const fs::path target = fs::read_symlink(link, ec);
      std::string m = "broken symlink";
      if (!ec) m += " to '" + target.generic_string() + "'";
      return m + " (" + errno_text(err) + "); skipped";
    }
    return "cannot access: " + errno_text(err) + "; skipped";
  }

  struct Ancestor {
    DirId id;
    fs::path path;
  };
  struct Walk {
    fs::path abs;        // the PATH argument, absolute
    fs::path canonical;  // the same, symlinks resolved: symlinked directories must stay below it
  };

  static fs::path join(const fs::path& dir, const std::string& name) {
    return dir == "." ? fs::path(name) : dir / name;
  }

  void walk_dir(const Walk& walk, const fs::path& dir, const std::string& rel,
                std::vector<Ancestor>& stack) {
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    if (ec) {
      report(dir, "cannot read directory (" + ec.message() + "); files in it are skipped");
      return;
    }
    std::sort(names.begin(), names.end());  // deterministic order

    for (const std::string& name : names) {
      const fs::path child = join(dir, name);
      const std::string child_rel = rel.empty() ? name : rel + "/" + name;
      struct stat lst;
      if (::lstat(child.c_str(), &lst) != 0) {
        if (errno != ENOENT) report(child, "cannot access: " + errno_text(errno) + "; skipped");
        continue;  // ENOENT: removed while we walked
      }
      const bool is_link = S_ISLNK(lst.st_mode);
      struct stat st = lst;
      if (is_link && ::stat(child.c_str(), &st) != 0) {
        const int err = errno;
        // A broken link to something that is not a .py file could be anything.
        if (is_py_name(name) || err == ELOOP) {
          if (first_report_of(lst)) {
            report(child, unresolvable_link(child, err),
                   is_py_name(name) ? Severity::Error : Severity::Warning);
          }
        }
        continue;
      }

      if (S_ISDIR(st.st_mode)) {
        if (skipped_dir(child, name) || excluded(child_rel, name)) continue;
        const DirId id{st.st_dev, st.st_ino};
        const auto ancestor = std::find_if(stack.begin(), stack.end(),
                                           [&](const Ancestor& a) { return a.id == id; });
        if (is_link) {
          const fs::path target = fs::canonical(child, ec);
          if (ec) {
            report(child, "cannot resolve symlink (" + ec.message() + "); skipped", Severity::Warning);
            continue;
          }
          if (!is_within(target, walk.canonical)) {
            if (first_report_of(lst)) {
              report(child, "symlinked directory points outside '" + display(walk.abs) + "' (to '" +
                                target.generic_string() + "'); not followed",
                     Severity::Warning);
            }
            continue;
          }
          if (ancestor != stack.end()) {
            if (first_report_of(lst)) {
              report(child, "symlink loop: points back to '" + display(ancestor->path) + "'; not followed",
                     Severity::Warning);
            }
            continue;
          }
        } else if (ancestor != stack.end()) {
          continue;  // a bind mount of an ancestor; nothing new below it
        }
        stack.push_back({id, child});
        walk_dir(walk, child, child_rel, stack);
        stack.pop_back();
      } else if (is_extension_name(name) && S_ISREG(st.st_mode) && !excluded(child_rel, name)) {
        extensions_.push_back({child, absolute(child), walk.abs});
      } else if (is_py_name(name) && !excluded(child_rel, name)) {
        if (S_ISREG(st.st_mode)) {
          // A symlinked file is a source wherever it points.
          add_file(child, walk.abs);
        } else {
          report(child, "not a regular file; skipped");
        }
      }
    }
  }

  bool first_report_of(const struct stat& link) {
    return reported_links_.insert(DirId{link.st_dev, link.st_ino}).second;
  }

  void set_up_explicit_roots() {
    for (const fs::path& r : options_.roots) {
      const fs::path abs = absolute(r.empty() ? fs::path(".") : r);
      struct stat st;
      if (::stat(abs.c_str(), &st) != 0) {
        report(r, "source root (--root): " + errno_text(errno));
      } else if (!S_ISDIR(st.st_mode)) {
        report(r, "source root (--root) is not a directory");
      }
      explicit_roots_.push_back(abs);
    }
    std::sort(explicit_roots_.begin(), explicit_roots_.end());
    explicit_roots_.erase(std::unique(explicit_roots_.begin(), explicit_roots_.end()),
                          explicit_roots_.end());
  }

  // The longest explicit root the file is below, lexically first, then with
  // symlinks resolved on both sides. Returns {root, file below that root}.
  std::optional<std::pair<fs::path, fs::path>> explicit_root_of(const Found& f) const {
    auto longest = [](const std::vector<fs::path>& roots, const fs::path& file)
        -> std::optional<fs::path> {
      std::optional<fs::path> best;
      for (const fs::path& root : roots) {
        if (file != root && is_within(file, root) &&
            (!best || root.native().size() > best->native().size())) {
          best = root;
        }
      }
      return best;
    };
    if (auto root = longest(explicit_roots_, f.abs)) return std::pair{*root, f.abs};
    std::error_code ec;
    const fs::path file = fs::weakly_canonical(f.abs, ec);
    if (ec) return std::nullopt;
    std::vector<fs::path> canonical_roots;
    for (const fs::path& r : explicit_roots_) {
      fs::path c = fs::weakly_canonical(r, ec);
      canonical_roots.push_back(ec ? r : normal(c));
    }
    auto root = longest(canonical_roots, normal(file));
    if (!root) return std::nullopt;
    // Report the root as the user spelled it.
    const auto i = std::find(canonical_roots.begin(), canonical_roots.end(), *root) - canonical_roots.begin();
    return std::pair{explicit_roots_[i], explicit_roots_[i] / normal(file).lexically_relative(*root)};
  }

  // A `src` directory above the detected root is the root of a src layout when
  // the walk started at or above it, or it sits next to project metadata.
  // Without that bound, ~/src/project/pkg would become module project.pkg.
  static bool is_src_layout(const fs::path& src, const fs::path& walk_root) {
    if (is_within(src, walk_root)) return true;
    for (std::string_view marker : kProjectMarkers) {
      if (is_plain_file(src.parent_path() / marker)) return true;
    }
    return false;
  }

  // Walks up while the directory is a package; the first directory that is
  // not is the root, unless a src layout (src/ns/pkg/...) claims the file.
  static fs::path detect_root(const Found& f) {
    fs::path dir = f.abs.parent_path();
    while (dir.has_relative_path() && has_init(dir)) dir = dir.parent_path();
    if (dir.filename() == "src") return dir;
    for (fs::path up = dir; up.has_relative_path(); up = up.parent_path()) {
      const std::string name = up.filename().string();
      if (name == "src") return is_src_layout(up, f.walk_root) ? up : dir;
      if (!is_identifier(name)) break;
    }
    return dir;
  }

  // Extension modules run no first-party Python, but `from pkg import _ext`
  // names a module, not an attribute of pkg. Kept only inside a first-party
  // package (a directory holding sources) and when no source gives the name.
  template <class ByModule>
  void add_extensions(Discovery& d, const ByModule& by_module) {
    std::set<std::string> packages(d.namespace_packages.begin(), d.namespace_packages.end());
    for (const SourceFile& f : d.files)
      if (f.is_package) packages.insert(f.module);
    std::set<std::string> names;
    for (const Found& f : extensions_) {
      auto c = place(f);
      if (!c || c->dirs.empty() || by_module.count(c->module)) continue;
      std::string parent = c->module.substr(0, c->module.rfind('.'));
      if (packages.count(parent)) names.insert(c->module);
    }
    d.extension_modules.assign(names.begin(), names.end());
  }

  std::optional<Candidate> place(const Found& f) {
    fs::path root, file = f.abs;
    if (!explicit_roots_.empty()) {
      auto match = explicit_root_of(f);
      if (!match) {
        report(f.path, "not under any source root (--root); skipped");
        return std::nullopt;
      }
      std::tie(root, file) = *match;
    } else {
      root = detect_root(f);
    }

    std::vector<std::string> parts;
    for (const fs::path& part : file.lexically_relative(root)) parts.push_back(part.string());
    Candidate c{f.path, f.abs, display(f.path), root, {}, {}, parts.back() == "__init__.py"};
    parts.pop_back();
    if (c.is_package && parts.empty()) {
      report(f.path, "__init__.py directly in source root '" + display(root) +
                         "' has no module name (is the root one level too deep?); skipped",
             Severity::Warning);
      return std::nullopt;
    }
    fs::path dir = root;
    for (const std::string& part : parts) {
      dir /= part;
      if (!is_identifier(part)) {
        // Once per directory, not once per file below it.
        if (reported_dirs_.insert(dir).second) {
          report(dir, not_importable(part) + "; files under it are skipped");
        }
        return std::nullopt;
      }
    }
    c.dirs = parts;
    if (!c.is_package) {
      const std::string file_name = file.filename().string();
      const std::string stem = is_py_name(file_name) ? file_name.substr(0, file_name.size() - 3)
                                                     : file_name.substr(0, file_name.find('.'));
      if (!is_identifier(stem)) {
        // A script (`my-script.py`) or a module loaded only through importlib
        // (Django's `migrations/0001_initial.py`): no import statement can name it.
        report(f.path, not_importable(stem) + " (only importlib can load it); skipped",
               Severity::Warning);
        return std::nullopt;
      }
      parts.push_back(stem);
    }
    for (const std::string& part : parts) c.module += (c.module.empty() ? "" : ".") + part;
    return c;
  }

  // Several files give one module: Python imports a package before a module
  // of the same name in one root; otherwise keep the first by path.
  Candidate choose(std::vector<Candidate>& group) {
    std::sort(group.begin(), group.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.display, a.abs) < std::tie(b.display, b.abs);
    });
    std::size_t winner = 0;
    for (std::size_t i = 0; i < group.size() && !group[winner].is_package; ++i) {
      if (group[i].is_package && group[i].root == group[0].root) winner = i;
    }
    const Candidate& w = group[winner];
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (i == winner) continue;
      const Candidate& c = group[i];
      std::string message;
      if (c.abs == w.abs) {
        message = "found twice (overlapping paths); analysed once";
      } else if (w.is_package && !c.is_package && c.root == w.root) {
        message = "module '" + c.module + "' is shadowed by the package '" + w.display +
                  "' (Python imports the package); skipped";
      } else {
        message = "duplicate module '" + c.module + "', already provided by '" + w.display +
                  "'; skipped";
      }
      diagnostics_.push_back({c.display, 0, std::move(message), Severity::Warning});
    }
    return std::move(group[winner]);
  }

  Discovery finish(std::vector<Candidate>& chosen) {
    Discovery d;
    std::set<fs::path> root_set(explicit_roots_.begin(), explicit_roots_.end());
    for (const Candidate& c : chosen) root_set.insert(c.root);
    std::map<fs::path, std::string> root_form;  // absolute -> as stored
    std::set<std::string> forms;
    for (const fs::path& r : root_set) forms.insert(root_form[r] = display(r));
    for (const std::string& f : forms) d.roots.emplace_back(f);

    std::set<std::string> namespaces;
    std::map<fs::path, bool> is_namespace_dir;
    for (const Candidate& c : chosen) {
      const auto form = forms.find(root_form.at(c.root));
      const int root = static_cast<int>(std::distance(forms.begin(), form));
      d.files.push_back({c.path.string(), c.display, c.module, c.is_package, root});
      // PEP 420: a directory between the root and the module without __init__.py.
      fs::path dir = c.root;
      std::string dotted;
      for (const std::string& part : c.dirs) {
        dir /= part;
        dotted += (dotted.empty() ? "" : ".") + part;
        auto [it, inserted] = is_namespace_dir.try_emplace(dir, false);
        if (inserted) it->second = !has_init(dir);
        if (it->second) namespaces.insert(dotted);
      }
    }
    // `chosen` comes from a map keyed by module name: already sorted and unique.
    d.namespace_packages.assign(namespaces.begin(), namespaces.end());
    d.diagnostics = std::move(diagnostics_);
    std::stable_sort(d.diagnostics.begin(), d.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                       return std::tie(a.file, a.line) < std::tie(b.file, b.line);
                     });
    return d;
  }

  const DiscoveryOptions& options_;
  fs::path cwd_;
  std::vector<std::string> excludes_;
  std::vector<fs::path> explicit_roots_;  // absolute, normal, sorted
  std::vector<Found> found_;
  std::vector<Found> extensions_;  // compiled extension modules seen by the walk
  std::vector<Diagnostic> diagnostics_;
  std::set<DirId> reported_links_;
  std::set<fs::path> reported_dirs_;
};

}  // namespace

bool is_identifier(std::string_view name) {
  if (name.empty()) return false;
  if (name.front() >= '0' && name.front() <= '9') return false;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) continue;  // part of a non-ASCII (UTF-8) letter
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return !is_keyword(name);
}

Discovery discover(const DiscoveryOptions& options) { return Discoverer(options).run(); }

}  // namespace cyclefix
