// Discovery and source reading. The file system is the thing under test here,
// so these tests build real trees in a fresh temporary directory.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "discovery.hpp"
#include "source_reader.hpp"

namespace cyclefix {
namespace {

namespace fs = std::filesystem;
using Severity = Diagnostic::Severity;

// A fresh directory, removed with everything in it at the end of the test.
class TempTree {
 public:
  TempTree() {
    std::string tmpl = (fs::path(testing::TempDir()) / "cyclefix_discovery_XXXXXX").string();
    const char* made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr) << "mkdtemp failed";
    root_ = fs::canonical(tmpl);
  }
  ~TempTree() {
    std::error_code ec;
    for (const fs::path& p : locked_) fs::permissions(p, fs::perms::owner_all, ec);
    fs::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const fs::path& root() const { return root_; }
  fs::path operator/(const std::string& rel) const { return root_ / rel; }

  fs::path write(const std::string& rel, const std::string& content = "") const {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  fs::path mkdir(const std::string& rel) const {
    fs::create_directories(root_ / rel);
    return root_ / rel;
  }
  // Creates `rel` as a symlink whose content is `target` (relative to the link's directory).
  fs::path symlink(const std::string& target, const std::string& rel) const {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    fs::create_symlink(target, p);
    return p;
  }
  void lock(const fs::path& p) {
    fs::permissions(p, fs::perms::none);
    locked_.push_back(p);
  }

 private:
  fs::path root_;
  std::vector<fs::path> locked_;
};

// Restores the working directory when the test ends.
class ScopedCwd {
 public:
  explicit ScopedCwd(const fs::path& dir) : saved_(fs::current_path()) { fs::current_path(dir); }
  ~ScopedCwd() { fs::current_path(saved_); }

 private:
  fs::path saved_;
};

std::vector<std::string> modules(const Discovery& d) {
  std::vector<std::string> out;
  for (const SourceFile& f : d.files) out.push_back(f.module);
  return out;
}

std::string all_messages(const Discovery& d) {
  std::string out;
  for (const Diagnostic& diag : d.diagnostics) out += format_diagnostic(diag) + "\n";
  return out;
}

int count_containing(const Discovery& d, const std::string& needle) {
  return static_cast<int>(std::count_if(d.diagnostics.begin(), d.diagnostics.end(),
                                        [&](const Diagnostic& x) {
                                          return x.message.find(needle) != std::string::npos;
                                        }));
}

const Diagnostic* find_diag(const Discovery& d, const std::string& file) {
  for (const Diagnostic& x : d.diagnostics) {
    if (x.file == file) return &x;
  }
  return nullptr;
}

const SourceFile* find_module(const Discovery& d, const std::string& module) {
  for (const SourceFile& f : d.files) {
    if (f.module == module) return &f;
  }
  return nullptr;
}

Discovery discover_paths(std::vector<fs::path> paths, std::vector<fs::path> roots = {},
                         std::vector<std::string> excludes = {}) {
  return discover({std::move(paths), std::move(roots), std::move(excludes)});
}

// ---------------------------------------------------------------- discovery

TEST(DiscoveryTest, PlainPackageTree) {
  TempTree t;
  t.write("proj/pkg/__init__.py");
  t.write("proj/pkg/a.py", "import os\n");
  t.write("proj/pkg/sub/__init__.py");
  t.write("proj/pkg/sub/b.py");
  t.write("proj/setup.py");
  t.write("proj/README.md");
  t.write("proj/pkg/data.txt");

  const Discovery d = discover_paths({t / "proj"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "pkg.a", "pkg.sub", "pkg.sub.b", "setup"}));
  EXPECT_TRUE(d.diagnostics.empty()) << all_messages(d);
  ASSERT_EQ(d.roots.size(), 1u);
  EXPECT_EQ(d.roots[0], t / "proj");
  EXPECT_TRUE(d.namespace_packages.empty());
  for (const SourceFile& f : d.files) {
    EXPECT_EQ(f.root, 0);
    EXPECT_EQ(f.is_package, std::filesystem::path(f.path).filename() == "__init__.py") << f.module;
  }
  EXPECT_EQ(find_module(d, "pkg.sub.b")->path, t / "proj/pkg/sub/b.py");
}

TEST(DiscoveryTest, WalkingASubpackageStillNamesItFromTheRealRoot) {
  TempTree t;
  t.write("proj/pkg/__init__.py");
  t.write("proj/pkg/sub/__init__.py");
  t.write("proj/pkg/sub/b.py");
  const Discovery d = discover_paths({t / "proj/pkg/sub"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg.sub", "pkg.sub.b"}));
  EXPECT_EQ(d.roots, std::vector<fs::path>{t / "proj"});
}

TEST(DiscoveryTest, SrcLayoutWithNamespacePackage) {
  TempTree t;
  t.write("proj/pyproject.toml", "[project]\nname = 'x'\n");
  t.write("proj/src/ns/pkg/__init__.py");
  t.write("proj/src/ns/pkg/mod.py");
  t.write("proj/src/plain/__init__.py");
  const std::vector<std::string> expected{"ns.pkg", "ns.pkg.mod", "plain"};

  for (const fs::path& walked : {t / "proj", t / "proj/src"}) {
    SCOPED_TRACE(walked.string());
    const Discovery d = discover_paths({walked});
    EXPECT_EQ(modules(d), expected);
    EXPECT_EQ(d.roots, std::vector<fs::path>{t / "proj/src"});
    EXPECT_EQ(d.namespace_packages, std::vector<std::string>{"ns"});
    EXPECT_TRUE(d.diagnostics.empty()) << all_messages(d);
  }
  // Walking below src: the pyproject.toml next to src marks the layout.
  const Discovery inner = discover_paths({t / "proj/src/ns/pkg"});
  EXPECT_EQ(modules(inner), (std::vector<std::string>{"ns.pkg", "ns.pkg.mod"}));
  EXPECT_EQ(inner.roots, std::vector<fs::path>{t / "proj/src"});
  EXPECT_EQ(inner.namespace_packages, std::vector<std::string>{"ns"});
}

TEST(DiscoveryTest, SrcAboveTheWalkedPathWithoutProjectFilesIsNotARoot) {
  // ~/src/project/mypkg: the user's checkout directory, not a src layout.
  TempTree t;
  t.write("src/project/mypkg/__init__.py");
  t.write("src/project/mypkg/m.py");
  const Discovery d = discover_paths({t / "src/project"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"mypkg", "mypkg.m"}));
  EXPECT_EQ(d.roots, std::vector<fs::path>{t / "src/project"});
  EXPECT_TRUE(d.namespace_packages.empty());
}

TEST(DiscoveryTest, ExplicitRootsLongestMatchWins) {
  TempTree t;
  t.write("r/top.py");
  t.write("r/lib/inner/c.py");
  t.write("r/lib/d.py");
  t.write("other/x.py");

  const Discovery d = discover_paths({t / "r", t / "other"}, {t / "r", t / "r/lib"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"d", "inner.c", "top"}));
  EXPECT_EQ(d.roots, (std::vector<fs::path>{t / "r", t / "r/lib"}));
  EXPECT_EQ(find_module(d, "top")->root, 0);
  EXPECT_EQ(find_module(d, "inner.c")->root, 1);
  EXPECT_EQ(find_module(d, "d")->root, 1);
  EXPECT_EQ(d.namespace_packages, std::vector<std::string>{"inner"});
  ASSERT_EQ(d.diagnostics.size(), 1u) << all_messages(d);
  EXPECT_EQ(d.diagnostics[0].file, (t / "other/x.py").string());
  EXPECT_NE(d.diagnostics[0].message.find("not under any source root"), std::string::npos);
}

TEST(DiscoveryTest, NamespacePackagesListed) {
  TempTree t;
  t.write("r/ns1/ns2/pkg/__init__.py");
  t.write("r/ns1/ns2/pkg/m.py");
  t.write("r/ns1/mod.py");
  t.write("r/ns1/regular/__init__.py");
  t.write("r/ns1/regular/deep/x.py");  // deep has no __init__.py: a namespace package
  const Discovery d = discover_paths({t / "r"}, {t / "r"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"ns1.mod", "ns1.ns2.pkg", "ns1.ns2.pkg.m",
                                                  "ns1.regular", "ns1.regular.deep.x"}));
  EXPECT_EQ(d.namespace_packages,
            (std::vector<std::string>{"ns1", "ns1.ns2", "ns1.regular.deep"}));
  EXPECT_TRUE(d.diagnostics.empty()) << all_messages(d);
}

TEST(DiscoveryTest, SkipsToolDirectoriesAndVirtualenvs) {
  TempTree t;
  t.write("p/pkg/__init__.py");
  t.write("p/pkg/keep.py");
  t.write("p/.git/hooks/x.py");
  t.write("p/pkg/__pycache__/y.py");
  t.write("p/node_modules/n.py");
  t.write("p/build/lib/pkg/b.py");
  t.write("p/dist/d.py");
  t.write("p/.tox/t.py");
  t.write("p/.venv/v.py");
  t.write("p/venv/v.py");
  t.write("p/env2/pyvenv.cfg", "home = /usr/bin\n");
  t.write("p/env2/lib/python3.11/site-packages/z.py");
  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "pkg.keep"}));
  EXPECT_TRUE(d.diagnostics.empty()) << all_messages(d);
}

TEST(DiscoveryTest, BuildDirectoryThatIsAPackageIsKept) {
  // pypa's `build` project is a real package named build.
  TempTree t;
  t.write("p/build/__init__.py");
  t.write("p/build/env.py");
  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"build", "build.env"}));
}

TEST(DiscoveryTest, ExcludeGlobsMatchRelativePathAndComponents) {
  TempTree t;
  t.write("p/pkg/__init__.py");
  t.write("p/pkg/keep.py");
  t.write("p/pkg/tests/__init__.py");
  t.write("p/pkg/tests/test_a.py");
  t.write("p/pkg/gen_pb2.py");
  t.write("p/pkg/vendored/__init__.py");
  t.write("p/pkg/vendored/six.py");
  t.write("p/pkg/sub/__init__.py");
  t.write("p/pkg/sub/skip_me.py");
  t.write("p/pkg/sub/keep_me.py");

  const Discovery d = discover_paths({t / "p"}, {}, {"tests", "*_pb2.py", "pkg/vendored/", "pkg/sub/skip_*"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "pkg.keep", "pkg.sub", "pkg.sub.keep_me"}));
  EXPECT_TRUE(d.diagnostics.empty()) << all_messages(d);

  // An explicit file argument is matched too.
  const Discovery f = discover_paths({t / "p/pkg/gen_pb2.py"}, {}, {"*_pb2.py"});
  EXPECT_TRUE(f.files.empty());
}

TEST(DiscoveryTest, NonIdentifierDirectoryReportedOnceAndSkipped) {
  TempTree t;
  t.write("p/my-pkg/__init__.py");
  t.write("p/my-pkg/a.py");
  t.write("p/my-pkg/b.py");
  t.write("p/my-pkg/sub/__init__.py");
  t.write("p/my-pkg/sub/c.py");
  t.write("p/ok/__init__.py");
  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), std::vector<std::string>{"ok"});
  ASSERT_EQ(d.diagnostics.size(), 1u) << all_messages(d);
  EXPECT_EQ(d.diagnostics[0].file, (t / "p/my-pkg").string());
  EXPECT_NE(d.diagnostics[0].message.find("not importable: 'my-pkg' is not a Python identifier"),
            std::string::npos);
  EXPECT_EQ(d.diagnostics[0].severity, Severity::Error);
}

TEST(DiscoveryTest, NonIdentifierFileNames) {
  TempTree t;
  t.write("p/setup.py");
  t.write("p/my-script.py");
  t.write("p/foo.bar.py");
  t.write("p/2x.py");
  t.write("p/pkg/__init__.py");
  t.write("p/pkg/bad-name.py");
  t.write("p/class/__init__.py");
  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "setup"}));

  const Diagnostic* script = find_diag(d, (t / "p/my-script.py").string());
  ASSERT_NE(script, nullptr) << all_messages(d);
  EXPECT_EQ(script->severity, Severity::Warning);  // a top-level script, not a module
  EXPECT_NE(script->message.find("'my-script' is not a Python identifier"), std::string::npos);
  ASSERT_NE(find_diag(d, (t / "p/foo.bar.py").string()), nullptr);
  ASSERT_NE(find_diag(d, (t / "p/2x.py").string()), nullptr);
  const Diagnostic* in_pkg = find_diag(d, (t / "p/pkg/bad-name.py").string());
  ASSERT_NE(in_pkg, nullptr);
  EXPECT_EQ(in_pkg->severity, Severity::Warning);  // e.g. migrations/0001_initial.py, loaded by importlib
  const Diagnostic* keyword = find_diag(d, (t / "p/class").string());
  ASSERT_NE(keyword, nullptr) << all_messages(d);
  EXPECT_NE(keyword->message.find("keyword"), std::string::npos);
  EXPECT_EQ(d.diagnostics.size(), 5u) << all_messages(d);
}

TEST(DiscoveryTest, SymlinkLoopReportedOnceAndTerminates) {
  TempTree t;
  t.write("p/pkg/__init__.py");
  t.write("p/pkg/a.py");
  t.symlink("..", "p/pkg/up");     // back to the walked directory
  t.symlink(".", "p/pkg/self");    // to itself
  // Two packages linking to each other: every path through them ends in a loop.
  t.write("p/x/__init__.py");
  t.write("p/y/__init__.py");
  t.symlink("../y", "p/x/to_y");
  t.symlink("../x", "p/y/to_x");

  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "pkg.a", "x", "x.to_y", "y", "y.to_x"}));
  EXPECT_EQ(count_containing(d, "symlink loop"), 4) << all_messages(d);
  const Diagnostic* up = find_diag(d, (t / "p/pkg/up").string());
  ASSERT_NE(up, nullptr) << all_messages(d);
  EXPECT_NE(up->message.find("points back to '" + (t / "p").string() + "'"), std::string::npos)
      << up->message;
  ASSERT_NE(find_diag(d, (t / "p/pkg/self").string()), nullptr);
  // Each link is named once, by the first path that reached it.
  ASSERT_NE(find_diag(d, (t / "p/x/to_y/to_x").string()), nullptr) << all_messages(d);
  ASSERT_NE(find_diag(d, (t / "p/y/to_x/to_y").string()), nullptr) << all_messages(d);
}

TEST(DiscoveryTest, SymlinkedDirectoriesInsideFollowedOutsideNot) {
  TempTree t;
  t.write("p/pkg/__init__.py");
  t.write("p/pkg/real/__init__.py");
  t.write("p/pkg/real/m.py");
  t.symlink("real", "p/pkg/alias");
  t.write("outside/ext/__init__.py");
  t.write("outside/one.py", "x = 1\n");
  t.symlink("../../outside/ext", "p/pkg/ext");
  t.symlink("../../outside/one.py", "p/pkg/linked.py");  // a source, wherever it points

  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "pkg.alias", "pkg.alias.m", "pkg.linked",
                                                  "pkg.real", "pkg.real.m"}));
  EXPECT_EQ(find_module(d, "pkg.linked")->path, t / "p/pkg/linked.py");
  ASSERT_EQ(d.diagnostics.size(), 1u) << all_messages(d);
  EXPECT_EQ(d.diagnostics[0].file, (t / "p/pkg/ext").string());
  EXPECT_NE(d.diagnostics[0].message.find("outside"), std::string::npos);
  EXPECT_EQ(d.diagnostics[0].severity, Severity::Warning);
}

TEST(DiscoveryTest, BrokenSymlinkReported) {
  TempTree t;
  t.write("p/pkg/__init__.py");
  t.symlink("missing.py", "p/pkg/dangling.py");
  t.symlink("me.py", "p/pkg/me.py");      // resolves to itself: ELOOP
  t.symlink("nowhere", "p/pkg/notes");    // not a .py file: nobody's source
  const Discovery d = discover_paths({t / "p"});
  EXPECT_EQ(modules(d), std::vector<std::string>{"pkg"});
  const Diagnostic* dangling = find_diag(d, (t / "p/pkg/dangling.py").string());
  ASSERT_NE(dangling, nullptr) << all_messages(d);
  EXPECT_NE(dangling->message.find("broken symlink to 'missing.py'"), std::string::npos)
      << dangling->message;
  const Diagnostic* loop = find_diag(d, (t / "p/pkg/me.py").string());
  ASSERT_NE(loop, nullptr) << all_messages(d);
  EXPECT_NE(loop->message.find("symlink loop"), std::string::npos);
  EXPECT_EQ(d.diagnostics.size(), 2u) << all_messages(d);

  // As a PATH argument too.
  const Discovery arg = discover_paths({t / "p/pkg/dangling.py"});
  ASSERT_EQ(arg.diagnostics.size(), 1u);
  EXPECT_NE(arg.diagnostics[0].message.find("broken symlink"), std::string::npos);
}

TEST(DiscoveryTest, DuplicateModuleKeepsFirstAndWarns) {
  TempTree t;
  t.write("r1/a.py");
  t.write("r2/a.py");
  t.write("r2/b.py");
  const Discovery d = discover_paths({t / "r1", t / "r2"}, {t / "r1", t / "r2"});
  EXPECT_EQ(modules(d), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(find_module(d, "a")->path, t / "r1/a.py");
  ASSERT_EQ(d.diagnostics.size(), 1u) << all_messages(d);
  EXPECT_EQ(d.diagnostics[0].file, (t / "r2/a.py").string());
  EXPECT_EQ(d.diagnostics[0].severity, Severity::Warning);
  EXPECT_NE(d.diagnostics[0].message.find("duplicate module 'a'"), std::string::npos);

  // The same file reached through two PATH arguments is analysed once.
  const Discovery twice = discover_paths({t / "r1", t / "r1/a.py"});
  EXPECT_EQ(modules(twice), std::vector<std::string>{"a"});
  EXPECT_EQ(twice.diagnostics.size(), 1u);
}

TEST(DiscoveryTest, PackageShadowsModuleOfTheSameName) {
  TempTree t;
  t.write("p/pkg.py");
  t.write("p/pkg/__init__.py");
  const Discovery d = discover_paths({t / "p"});
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_TRUE(d.files[0].is_package);
  EXPECT_EQ(d.files[0].path, (t / "p/pkg/__init__.py").string());
  ASSERT_EQ(d.diagnostics.size(), 1u);
  EXPECT_EQ(d.diagnostics[0].file, (t / "p/pkg.py").string());
}

TEST(DiscoveryTest, NonexistentPathIsADiagnostic) {
  TempTree t;
  t.write("p/m.py");
  const Discovery d = discover_paths({t / "nope", t / "p"});
  EXPECT_EQ(modules(d), std::vector<std::string>{"m"});
  ASSERT_EQ(d.diagnostics.size(), 1u);
  EXPECT_EQ(d.diagnostics[0].file, (t / "nope").string());
  EXPECT_EQ(d.diagnostics[0].message, "no such file or directory");
}

TEST(DiscoveryTest, FileArguments) {
  TempTree t;
  t.write("p/pkg/__init__.py");
  t.write("p/pkg/m.py");
  t.write("p/tool");
  const Discovery d = discover_paths({t / "p/pkg/m.py", t / "p/tool"});
  EXPECT_EQ(modules(d), std::vector<std::string>{"pkg.m"});
  ASSERT_EQ(d.diagnostics.size(), 1u);
  EXPECT_EQ(d.diagnostics[0].severity, Severity::Warning);
  EXPECT_NE(d.diagnostics[0].message.find("not a Python file"), std::string::npos);
}

TEST(DiscoveryTest, DisplayIsRelativeToTheWorkingDirectory) {
  TempTree t;
  t.write("pkg/__init__.py");
  t.write("pkg/a.py");
  ScopedCwd cwd(t.root());

  const Discovery d = discover({});  // "."
  EXPECT_EQ(modules(d), (std::vector<std::string>{"pkg", "pkg.a"}));
  const SourceFile* a = find_module(d, "pkg.a");
  EXPECT_EQ(a->display, "pkg/a.py");
  EXPECT_EQ(a->path, fs::path("pkg/a.py"));
  EXPECT_EQ(d.roots, std::vector<fs::path>{"."});

  const Discovery slash = discover_paths({"./pkg/", t / "nope"});
  EXPECT_EQ(find_module(slash, "pkg.a")->display, "pkg/a.py");
  EXPECT_EQ(find_module(slash, "pkg.a")->path, fs::path("pkg/a.py"));
  ASSERT_EQ(slash.diagnostics.size(), 1u);
  EXPECT_EQ(slash.diagnostics[0].file, "nope");

  const Discovery absolute = discover_paths({t / "pkg"});
  EXPECT_EQ(find_module(absolute, "pkg.a")->display, "pkg/a.py");
  EXPECT_EQ(find_module(absolute, "pkg.a")->path, t / "pkg/a.py");
}

TEST(DiscoveryTest, IsIdentifier) {
  EXPECT_TRUE(is_identifier("pkg"));
  EXPECT_TRUE(is_identifier("_private2"));
  EXPECT_TRUE(is_identifier("caf\xc3\xa9"));  // café
  EXPECT_TRUE(is_identifier("match"));          // soft keywords are names
  EXPECT_TRUE(is_identifier("type"));
  EXPECT_FALSE(is_identifier(""));
  EXPECT_FALSE(is_identifier("2x"));
  EXPECT_FALSE(is_identifier("my-pkg"));
  EXPECT_FALSE(is_identifier("foo.bar"));
  EXPECT_FALSE(is_identifier("class"));
  EXPECT_FALSE(is_identifier("None"));
  EXPECT_FALSE(is_identifier("import"));
}

TEST(DiscoveryTest, FormatDiagnostic) {
  EXPECT_EQ(format_diagnostic({"pkg/a.py", 3, "invalid UTF-8 at line 3"}),
            "pkg/a.py:3: invalid UTF-8 at line 3");
  EXPECT_EQ(format_diagnostic({"pkg", 0, "no such file or directory"}),
            "pkg: no such file or directory");
}

// ------------------------------------------------------------ source reader

TEST(SourceReaderTest, EmptyFileIsAValidModule) {
  TempTree t;
  const SourceText s = read_source(t.write("empty.py"));
  EXPECT_TRUE(s.ok) << s.problem;
  EXPECT_TRUE(s.bytes.empty());
}

TEST(SourceReaderTest, ByteOrderMarkIsFine) {
  TempTree t;
  const std::string content = "\xEF\xBB\xBFimport os\nname = 'caf\xC3\xA9'\n";
  const SourceText s = read_source(t.write("bom.py", content));
  EXPECT_TRUE(s.ok) << s.problem;
  EXPECT_EQ(s.bytes, content);  // kept: edit offsets are offsets into the file
}

TEST(SourceReaderTest, InvalidUtf8ReportsItsLine) {
  TempTree t;
  const SourceText s = read_source(t.write("bad.py", "import os\n\n# caf\xE9\nx = 1\n"));
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.problem, "invalid UTF-8 at line 3");
  EXPECT_EQ(s.problem_line, 3);
}

TEST(SourceReaderTest, NulByteMeansBinary) {
  TempTree t;
  const SourceText s = read_source(t.write("bin.py", std::string("a = 1\nb = 2\n\x7f" "ELF\0\0", 18)));
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.problem, "binary file (NUL byte at line 3)");
  EXPECT_EQ(s.problem_line, 3);
}

TEST(SourceReaderTest, DirectoryNamedLikeASourceFile) {
  TempTree t;
  const SourceText s = read_source(t.mkdir("x.py"));
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.problem, "cannot read: " + std::generic_category().message(EISDIR));
}

TEST(SourceReaderTest, UnreadableFile) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: chmod 000 does not stop reading "
                    "(DirectoryNamedLikeASourceFile covers the unreadable case)";
  }
  TempTree t;
  const fs::path p = t.write("secret.py", "x = 1\n");
  t.lock(p);
  const SourceText s = read_source(p);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.problem, "cannot read: " + std::generic_category().message(EACCES));
}

TEST(SourceReaderTest, BrokenSymlinkAndSymlinkLoop) {
  TempTree t;
  const SourceText broken = read_source(t.symlink("missing.py", "dangling.py"));
  EXPECT_FALSE(broken.ok);
  EXPECT_EQ(broken.problem, "cannot read: broken symlink (" + std::generic_category().message(ENOENT) + ")");
  const SourceText loop = read_source(t.symlink("loop.py", "loop.py"));
  EXPECT_FALSE(loop.ok);
  EXPECT_EQ(loop.problem, "cannot read: symlink loop (" + std::generic_category().message(ELOOP) + ")");
  const SourceText missing = read_source(t / "never.py");
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.problem, "cannot read: " + std::generic_category().message(ENOENT));
}

TEST(SourceReaderTest, LargeFileOverTheLimitAndUnderABiggerOne) {
  TempTree t;
  const std::string line = "value = 12345678901234567890  # padding\n";  // 40 bytes
  std::string content;
  content.reserve(20u << 20);
  while (content.size() + line.size() <= (20u << 20)) content += line;
  content.append((20u << 20) - content.size(), '\n');
  ASSERT_EQ(content.size(), 20u << 20);
  const fs::path p = t.write("huge.py", content);

  const SourceText over = read_source(p, 16ull << 20);
  EXPECT_FALSE(over.ok);
  EXPECT_EQ(over.problem, "file is 20.0 MB, over the 16 MB limit");
  EXPECT_TRUE(over.bytes.empty());

  const auto start = std::chrono::steady_clock::now();
  const SourceText under = read_source(p, 64ull << 20);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(under.ok) << under.problem;
  EXPECT_EQ(under.bytes.size(), content.size());
  EXPECT_TRUE(under.bytes == content);
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(SourceReaderTest, Latin1WithCodingDeclarationIsOk) {
  TempTree t;
  const SourceText s = read_source(t.write("l1.py", "# -*- coding: latin-1 -*-\nname = 'caf\xE9'\n"));
  EXPECT_TRUE(s.ok) << s.problem;

  // Line 2 counts after a shebang; Vim's spelling matches the PEP 263 regex.
  const SourceText vim = read_source(
      t.write("vim.py", "#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-15 :\nx = '\xA4'\n"));
  EXPECT_TRUE(vim.ok) << vim.problem;
}

TEST(SourceReaderTest, CodingDeclarationRules) {
  TempTree t;
  // Line 2 does not count when line 1 is code (CPython's rule).
  const SourceText late = read_source(t.write("late.py", "import os\n# coding: latin-1\nx = '\xE9'\n"));
  EXPECT_FALSE(late.ok);
  EXPECT_EQ(late.problem_line, 3);
  // Line 3 never counts.
  const SourceText third = read_source(t.write("third.py", "#!/bin/python\n\n# coding: latin-1\n'\xE9'\n"));
  EXPECT_FALSE(third.ok);
  EXPECT_EQ(third.problem_line, 4);
  // A UTF-8 declaration does not excuse invalid UTF-8.
  const SourceText utf8 = read_source(t.write("u.py", "# coding=UTF_8\nx = '\xE9'\n"));
  EXPECT_FALSE(utf8.ok);
  EXPECT_EQ(utf8.problem, "invalid UTF-8 at line 2");
  // A declaration that contradicts a BOM is refused, as CPython does.
  const SourceText bom = read_source(t.write("b.py", "\xEF\xBB\xBF# coding: latin-1\nx = 1\n"));
  EXPECT_FALSE(bom.ok);
  EXPECT_EQ(bom.problem_line, 1);
  // Binary stays binary whatever the declaration says.
  const SourceText nul = read_source(t.write("n.py", std::string("# coding: latin-1\n\0", 19)));
  EXPECT_FALSE(nul.ok);
  EXPECT_EQ(nul.problem_line, 2);
}

TEST(SourceReaderTest, Utf8SequencesValidated) {
  EXPECT_EQ(first_invalid_utf8_line(""), 0);
  EXPECT_EQ(first_invalid_utf8_line("plain ascii\n"), 0);
  EXPECT_EQ(first_invalid_utf8_line("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"), 0);
  EXPECT_EQ(first_invalid_utf8_line("\xEF\xBF\xBF\xED\x9F\xBF\xEE\x80\x80"), 0);  // U+FFFF, U+D7FF, U+E000

  EXPECT_EQ(first_invalid_utf8_line("a\nb\n\xC0\x80"), 3);          // overlong NUL
  EXPECT_EQ(first_invalid_utf8_line("\xC1\xBF"), 1);                // overlong 2-byte
  EXPECT_EQ(first_invalid_utf8_line("\xE0\x80\xAF"), 1);            // overlong 3-byte '/'
  EXPECT_EQ(first_invalid_utf8_line("\xF0\x8F\xBF\xBF"), 1);        // overlong 4-byte
  EXPECT_EQ(first_invalid_utf8_line("x\n\xED\xA0\x80"), 2);         // surrogate U+D800
  EXPECT_EQ(first_invalid_utf8_line("\xED\xBF\xBF"), 1);            // surrogate U+DFFF
  EXPECT_EQ(first_invalid_utf8_line("\xF4\x90\x80\x80"), 1);        // U+110000
  EXPECT_EQ(first_invalid_utf8_line("\xF5\x80\x80\x80"), 1);
  EXPECT_EQ(first_invalid_utf8_line("\xFF"), 1);
  EXPECT_EQ(first_invalid_utf8_line("ok\n\x80"), 2);                // stray continuation byte
  EXPECT_EQ(first_invalid_utf8_line("\n\n\xE2\x82"), 3);            // truncated at end of file
  EXPECT_EQ(first_invalid_utf8_line("\xF0\x9F\x98\nx"), 1);         // truncated by a newline
  EXPECT_EQ(first_invalid_utf8_line("\xC3"), 1);

  TempTree t;
  const SourceText s = read_source(t.write("trunc.py", "x = 1\ny = '\xE2\x82'\n"));
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.problem, "invalid UTF-8 at line 2");
}

}  // namespace
}  // namespace cyclefix
