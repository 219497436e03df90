// Import resolution on an in-memory module index: one construct per test.
// Statements are built by hand; no files, no parser.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "module_index.hpp"

namespace cyclefix {
namespace {

struct Mod {
  std::string name;
  bool package = false;
  bool ns = false;
};

ModuleIndex make_index(const std::vector<Mod>& mods) {
  ModuleIndex index;
  int file = 0;
  for (const auto& m : mods) {
    ModuleInfo info;
    info.name = m.name;
    info.is_package = m.package || m.ns;
    info.is_namespace = m.ns;
    info.file = m.ns ? -1 : file++;
    index.add(std::move(info));
  }
  return index;
}

// The usual tree:
//   pkg/__init__.py, pkg/a.py, pkg/b.py,
//   pkg/sub/__init__.py, pkg/sub/mod.py, pkg/sub/deep/__init__.py, pkg/sub/deep/leaf.py
//   pkg/util/__init__.py, pkg/util/version.py, pkg/util/regex.py
//   top.py (a top-level module)
ModuleIndex tree() {
  return make_index({
      {"pkg", true},
      {"pkg.a"},
      {"pkg.b"},
      {"pkg.sub", true},
      {"pkg.sub.mod"},
      {"pkg.sub.deep", true},
      {"pkg.sub.deep.leaf"},
      {"pkg.util", true},
      {"pkg.util.version"},
      {"pkg.util.regex"},
      {"top"},
  });
}

ImportStatement import_stmt(std::vector<std::pair<std::string, std::string>> names) {
  ImportStatement s;
  s.is_from = false;
  for (auto& [name, as] : names) s.names.push_back({name, as});
  return s;
}

ImportStatement from_stmt(std::string module, int level, std::vector<std::string> names) {
  ImportStatement s;
  s.is_from = true;
  s.module = std::move(module);
  s.level = level;
  for (auto& n : names) s.names.push_back({n, ""});
  return s;
}

ImportStatement star_stmt(std::string module, int level) {
  ImportStatement s = from_stmt(std::move(module), level, {});
  s.star = true;
  return s;
}

ModuleId id(const ModuleIndex& index, std::string_view name) {
  auto found = index.find(name);
  EXPECT_TRUE(found.has_value()) << name;
  return found.value_or(0);
}

// Targets rendered as "reason:module[:name]" for readable comparisons.
std::vector<std::string> render(const ModuleIndex& index, const ResolvedImport& r) {
  std::vector<std::string> out;
  for (const auto& t : r.targets) {
    std::string s = std::string(to_string(t.reason)) + ":" + index[t.module].name;
    if (!t.name.empty()) s += ":" + t.name;
    out.push_back(s);
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(Resolution, EdgeReasonNames) {
  EXPECT_EQ(to_string(EdgeReason::Executes), "executes");
  EXPECT_EQ(to_string(EdgeReason::NameFrom), "name");
  EXPECT_EQ(to_string(EdgeReason::Submodule), "submodule");
}

TEST(Resolution, IsAncestorIsAProperDottedPrefix) {
  EXPECT_TRUE(is_ancestor("a", "a.b"));
  EXPECT_TRUE(is_ancestor("a.b", "a.b.c"));
  EXPECT_FALSE(is_ancestor("a", "a"));
  EXPECT_FALSE(is_ancestor("a", "ab.c"));
  EXPECT_FALSE(is_ancestor("a.b", "a"));
  EXPECT_FALSE(is_ancestor("", "a"));
}

TEST(Resolution, IndexFindAndTopLevels) {
  auto index = tree();
  EXPECT_EQ(index.size(), 11u);
  EXPECT_EQ(index[id(index, "pkg.sub.mod")].name, "pkg.sub.mod");
  EXPECT_FALSE(index.find("pkg.missing").has_value());
  EXPECT_TRUE(index.has_top_level("pkg"));
  EXPECT_TRUE(index.has_top_level("top"));
  EXPECT_FALSE(index.has_top_level("os"));
  EXPECT_FALSE(index.has_top_level("pk"));
}

TEST(Resolution, RelativeBaseFromModule) {
  auto index = tree();
  ModuleId m = id(index, "pkg.sub.deep.leaf");
  EXPECT_EQ(index.relative_base(m, 1), "pkg.sub.deep");
  EXPECT_EQ(index.relative_base(m, 2), "pkg.sub");
  EXPECT_EQ(index.relative_base(m, 3), "pkg");
  EXPECT_EQ(index.relative_base(m, 4), std::nullopt);
}

TEST(Resolution, RelativeBaseFromPackageInit) {
  auto index = tree();
  ModuleId p = id(index, "pkg.sub.deep");
  EXPECT_EQ(index.relative_base(p, 1), "pkg.sub.deep");
  EXPECT_EQ(index.relative_base(p, 2), "pkg.sub");
  EXPECT_EQ(index.relative_base(p, 3), "pkg");
  EXPECT_EQ(index.relative_base(p, 4), std::nullopt);
}

TEST(Resolution, RelativeBaseOfTopLevelModuleIsOutOfRange) {
  auto index = tree();
  EXPECT_EQ(index.relative_base(id(index, "top"), 1), std::nullopt);
  EXPECT_EQ(index.relative_base(id(index, "pkg"), 1), "pkg");
  EXPECT_EQ(index.relative_base(id(index, "pkg"), 2), std::nullopt);
}

TEST(Resolution, RelativeLevelOneFromModule) {
  // pkg/a.py: from .b import f
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.a"), from_stmt("b", 1, {"f"}));
  EXPECT_EQ(r.absolute_module, "pkg.b");
  EXPECT_TRUE(r.first_party);
  EXPECT_EQ(render(index, r), (Strings{"name:pkg.b:f"}));
  EXPECT_TRUE(r.error.empty());
}

TEST(Resolution, RelativeLevelTwoFromModule) {
  // pkg/sub/mod.py: from ..util.regex import compile
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub.mod"), from_stmt("util.regex", 2, {"compile"}));
  EXPECT_EQ(r.absolute_module, "pkg.util.regex");
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg.util", "name:pkg.util.regex:compile"}));
}

TEST(Resolution, RelativeLevelThreeFromModule) {
  // pkg/sub/deep/leaf.py: from ...a import f
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub.deep.leaf"), from_stmt("a", 3, {"f"}));
  EXPECT_EQ(r.absolute_module, "pkg.a");
  EXPECT_EQ(render(index, r), (Strings{"name:pkg.a:f"}));
}

TEST(Resolution, RelativeLevelsFromPackageInit) {
  // pkg/sub/__init__.py: `from .mod import f` stays inside pkg.sub,
  // `from ..a import g` goes to pkg.a, `from ...x import y` is beyond the top.
  auto index = tree();
  ModuleId init = id(index, "pkg.sub");
  auto one = index.resolve(init, from_stmt("mod", 1, {"f"}));
  EXPECT_EQ(one.absolute_module, "pkg.sub.mod");
  EXPECT_EQ(render(index, one), (Strings{"name:pkg.sub.mod:f"}));
  auto two = index.resolve(init, from_stmt("a", 2, {"g"}));
  EXPECT_EQ(two.absolute_module, "pkg.a");
  EXPECT_EQ(render(index, two), (Strings{"name:pkg.a:g"}));
  auto three = index.resolve(init, from_stmt("x", 3, {"y"}));
  EXPECT_EQ(three.error, "attempted relative import beyond top-level package");
}

TEST(Resolution, RelativeLevelThreeFromDeepPackageInit) {
  // pkg/sub/deep/__init__.py: from ...util import version
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub.deep"), from_stmt("util", 3, {"version"}));
  EXPECT_EQ(r.absolute_module, "pkg.util");
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg.util", "submodule:pkg.util.version:version"}));
}

TEST(Resolution, RelativeBeyondTopLevelIsAnError) {
  // pkg/a.py: from ...x import y
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.a"), from_stmt("x", 3, {"y"}));
  EXPECT_EQ(r.error, "attempted relative import beyond top-level package");
  EXPECT_TRUE(r.targets.empty());
  EXPECT_TRUE(r.absolute_module.empty());
  EXPECT_EQ(r.unresolved, (Strings{"...x"}));
}

TEST(Resolution, ImportDottedExecutesEveryPackageOnThePath) {
  // top.py: import pkg.sub.mod
  auto index = tree();
  auto r = index.resolve(id(index, "top"), import_stmt({{"pkg.sub.mod", ""}}));
  EXPECT_TRUE(r.first_party);
  EXPECT_EQ(r.absolute_module, "pkg.sub.mod");
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "executes:pkg.sub", "executes:pkg.sub.mod"}));
}

TEST(Resolution, ImportWithAliasExecutesTheSamePath) {
  // top.py: import pkg.sub as s
  auto index = tree();
  auto r = index.resolve(id(index, "top"), import_stmt({{"pkg.sub", "s"}}));
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "executes:pkg.sub"}));
}

TEST(Resolution, ImportSeveralNamesDeduplicatesSharedPackages) {
  // top.py: import pkg.a, pkg.b, os
  auto index = tree();
  auto r = index.resolve(id(index, "top"), import_stmt({{"pkg.a", ""}, {"pkg.b", ""}, {"os", ""}}));
  EXPECT_TRUE(r.first_party);
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "executes:pkg.a", "executes:pkg.b"}));
}

TEST(Resolution, StarImportTakesNamesFromTheModule) {
  // top.py: from pkg.sub import *
  auto index = tree();
  auto r = index.resolve(id(index, "top"), star_stmt("pkg.sub", 0));
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "name:pkg.sub:*"}));
}

TEST(Resolution, FromPackageImportSubmodule) {
  // top.py: from pkg import sub
  auto index = tree();
  auto r = index.resolve(id(index, "top"), from_stmt("pkg", 0, {"sub"}));
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "submodule:pkg.sub:sub"}));
}

TEST(Resolution, FromPackageImportName) {
  // top.py: from pkg import helper  (helper is not a module)
  auto index = tree();
  auto r = index.resolve(id(index, "top"), from_stmt("pkg", 0, {"helper"}));
  EXPECT_EQ(render(index, r), (Strings{"name:pkg:helper"}));
  EXPECT_TRUE(r.unresolved.empty());
}

TEST(Resolution, FromPackageImportSubmoduleAndName) {
  // top.py: from pkg import a, helper, b
  auto index = tree();
  auto r = index.resolve(id(index, "top"), from_stmt("pkg", 0, {"a", "helper", "b"}));
  EXPECT_EQ(render(index, r), (Strings{"name:pkg:helper", "submodule:pkg.a:a", "submodule:pkg.b:b"}));
}

TEST(Resolution, FromDotImportSubmoduleInsideThePackage) {
  // pkg/__init__.py: from . import sub, helper
  // pkg is the importer: nothing runs for it and a name from itself is no edge.
  auto index = tree();
  auto r = index.resolve(id(index, "pkg"), from_stmt("", 1, {"sub", "helper"}));
  EXPECT_EQ(r.absolute_module, "pkg");
  EXPECT_EQ(render(index, r), (Strings{"submodule:pkg.sub:sub"}));
}

TEST(Resolution, FromDotImportSiblingFromModule) {
  // pkg/a.py: from . import b
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.a"), from_stmt("", 1, {"b"}));
  EXPECT_EQ(render(index, r), (Strings{"submodule:pkg.b:b"}));
}

TEST(Resolution, NamespacePackageOnThePathIsNotATarget) {
  // ns/ has no __init__.py; ns/pkg/__init__.py, ns/pkg/mod.py.
  auto index = make_index({{"ns", false, true}, {"ns.pkg", true}, {"ns.pkg.mod"}, {"app"}});
  auto r = index.resolve(id(index, "app"), import_stmt({{"ns.pkg.mod", ""}}));
  EXPECT_EQ(render(index, r), (Strings{"executes:ns.pkg", "executes:ns.pkg.mod"}));
  auto f = index.resolve(id(index, "app"), from_stmt("ns", 0, {"pkg"}));
  EXPECT_EQ(render(index, f), (Strings{"submodule:ns.pkg:pkg"}));
}

TEST(Resolution, NameFromNamespacePackageIsUnresolved) {
  // A namespace package has no body, so a name that is not a submodule cannot come from it.
  auto index = make_index({{"ns", false, true}, {"ns.mod"}, {"app"}});
  auto r = index.resolve(id(index, "app"), from_stmt("ns", 0, {"thing"}));
  EXPECT_TRUE(r.targets.empty());
  EXPECT_EQ(r.unresolved, (Strings{"ns.thing"}));
}

TEST(Resolution, InitReexportIsNameFromThePackage) {
  // pkg/__init__.py defines Foo (re-exported from pkg.a); top.py: from pkg import Foo
  auto index = tree();
  auto r = index.resolve(id(index, "top"), from_stmt("pkg", 0, {"Foo"}));
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].module, id(index, "pkg"));
  EXPECT_EQ(r.targets[0].reason, EdgeReason::NameFrom);
  EXPECT_EQ(r.targets[0].name, "Foo");
}

TEST(Resolution, ImporterAncestorsAreNotExecuted) {
  // pkg/util/version.py: import pkg.util.regex -> pkg and pkg.util are already loading.
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.util.version"), import_stmt({{"pkg.util.regex", ""}}));
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg.util.regex"}));
}

TEST(Resolution, ImportOfOwnAncestorRunsNothing) {
  // pkg/sub/mod.py: import pkg.sub
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub.mod"), import_stmt({{"pkg.sub", ""}}));
  EXPECT_TRUE(r.first_party);
  EXPECT_TRUE(r.targets.empty());
  EXPECT_TRUE(r.unresolved.empty());
}

TEST(Resolution, NameFromAncestorIsAnEdge) {
  // pkg/sub/mod.py: from pkg import VERSION -> a name is needed from the loading pkg.
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub.mod"), from_stmt("pkg", 0, {"VERSION"}));
  EXPECT_EQ(render(index, r), (Strings{"name:pkg:VERSION"}));
}

TEST(Resolution, SubmoduleThatIsAnAncestorIsNotAnEdge) {
  // pkg/sub/mod.py: from pkg import sub -> pkg.sub is already in sys.modules.
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub.mod"), from_stmt("pkg", 0, {"sub"}));
  EXPECT_TRUE(r.targets.empty());
}

TEST(Resolution, NameFromWinsOverExecutesForTheSameModule) {
  // top.py: from pkg.sub import mod, helper -> pkg.sub is executed and a name is needed from it.
  auto index = tree();
  auto r = index.resolve(id(index, "top"), from_stmt("pkg.sub", 0, {"mod", "helper"}));
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "name:pkg.sub:helper", "submodule:pkg.sub.mod:mod"}));
}

TEST(Resolution, ThirdPartyIsALeaf) {
  auto index = tree();
  auto r = index.resolve(id(index, "top"), from_stmt("numpy.linalg", 0, {"norm"}));
  EXPECT_FALSE(r.first_party);
  EXPECT_TRUE(r.targets.empty());
  EXPECT_TRUE(r.unresolved.empty());
  EXPECT_EQ(r.absolute_module, "numpy.linalg");
  auto i = index.resolve(id(index, "top"), import_stmt({{"os.path", ""}}));
  EXPECT_FALSE(i.first_party);
  EXPECT_TRUE(i.targets.empty());
}

TEST(Resolution, UnresolvedFirstPartySubmodule) {
  auto index = tree();
  auto r = index.resolve(id(index, "top"), import_stmt({{"pkg.sub.missing", ""}}));
  EXPECT_TRUE(r.first_party);
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg", "executes:pkg.sub"}));
  EXPECT_EQ(r.unresolved, (Strings{"pkg.sub.missing"}));
  auto f = index.resolve(id(index, "top"), from_stmt("pkg.nothing", 0, {"x"}));
  EXPECT_TRUE(f.first_party);
  EXPECT_EQ(render(index, f), (Strings{"executes:pkg"}));
  EXPECT_EQ(f.unresolved, (Strings{"pkg.nothing"}));
}

TEST(Resolution, SrcLayoutNamesAreJustDottedNames) {
  // src/ns/pkg/mod.py with src as the root: module names start at ns.
  auto index = make_index({{"ns", true}, {"ns.pkg", true}, {"ns.pkg.mod"}, {"ns.pkg.other"}});
  auto r = index.resolve(id(index, "ns.pkg.mod"), from_stmt("other", 1, {"f"}));
  EXPECT_EQ(r.absolute_module, "ns.pkg.other");
  EXPECT_EQ(render(index, r), (Strings{"name:ns.pkg.other:f"}));
  auto i = index.resolve(id(index, "ns.pkg.mod"), import_stmt({{"ns.pkg.other", ""}}));
  EXPECT_EQ(render(index, i), (Strings{"executes:ns.pkg.other"}));
}

TEST(Resolution, ImportingItselfIsNoTarget) {
  auto index = tree();
  ModuleId a = id(index, "pkg.a");
  EXPECT_TRUE(index.resolve(a, import_stmt({{"pkg.a", ""}})).targets.empty());
  EXPECT_TRUE(index.resolve(a, from_stmt("pkg.a", 0, {"f"})).targets.empty());
  // `from . import *` is a name import from the ancestor pkg, not from itself.
  EXPECT_EQ(render(index, index.resolve(a, star_stmt("", 1))), (Strings{"name:pkg:*"}));
  EXPECT_TRUE(index.resolve(a, from_stmt("", 1, {"a"})).targets.empty());
}

TEST(Resolution, DeepImportFromPackageInitSkipsOnlyItself) {
  // pkg/sub/__init__.py: import pkg.sub.deep.leaf -> only deep and leaf run.
  auto index = tree();
  auto r = index.resolve(id(index, "pkg.sub"), import_stmt({{"pkg.sub.deep.leaf", ""}}));
  EXPECT_EQ(render(index, r), (Strings{"executes:pkg.sub.deep", "executes:pkg.sub.deep.leaf"}));
}

}  // namespace
}  // namespace cyclefix
