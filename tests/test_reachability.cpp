// Import-time reachability: function bodies that module-level code runs, and
// the edges their local imports create.

#include <gtest/gtest.h>

#include "in_memory.hpp"

using namespace cyclefix;
using cyclefix::testing_support::analysis_of;
using cyclefix::testing_support::has_edge;

namespace {

bool runs(const Analysis& a, const std::string& module, const std::string& function) {
  for (std::size_t f = 0; f < a.files.size(); ++f) {
    if (a.files[f].source.module != module) continue;
    int i = function_index(a.files[f].facts, function);
    return i >= 0 && a.reach.body_runs(static_cast<int>(f), i);
  }
  return false;
}

}  // namespace

// The seed's first attempt: the import moved into __init__, but a module-level
// instantiation still runs it.
TEST(Reachability, LocalImportInInitReachedByModuleLevelInstance) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/verifier.py",
       "class V:\n    def __init__(self):\n        from p.capture import Config\n        self.c = Config()\n"
       "DEFAULT = V()\n"},
      {"p/capture.py", "from p.verifier import V\nclass Config: pass\n"},
  });
  EXPECT_TRUE(runs(a, "p.verifier", "V.__init__"));
  EXPECT_TRUE(has_edge(a, "p.verifier", "p.capture"));
  EXPECT_TRUE(has_edge(a, "p.capture", "p.verifier"));
}

TEST(Reachability, UncalledFunctionImportIsNotAnEdge) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/a.py", "def f():\n    from p.b import X\n    return X\n"},
      {"p/b.py", "from p.a import f\nX = 1\n"},
  });
  EXPECT_FALSE(runs(a, "p.a", "f"));
  EXPECT_FALSE(has_edge(a, "p.a", "p.b"));
}

TEST(Reachability, CallChainsAndSelfMethods) {
  auto a = analysis_of({
      {"m.py",
       "def helper():\n    import n\n"
       "class C:\n    def __init__(self):\n        self.setup()\n    def setup(self):\n        helper()\n"
       "    def unused(self):\n        import o\n"
       "c = C()\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "C.setup"));
  EXPECT_TRUE(runs(a, "m", "helper"));
  EXPECT_FALSE(runs(a, "m", "C.unused"));
  EXPECT_TRUE(has_edge(a, "m", "n"));
  EXPECT_FALSE(has_edge(a, "m", "o"));
}

TEST(Reachability, DecoratorBodyRunsAtDefinition) {
  auto a = analysis_of({
      {"m.py", "def deco(f):\n    import n\n    return f\n@deco\ndef g():\n    import o\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "deco"));
  EXPECT_FALSE(runs(a, "m", "g"));
  EXPECT_TRUE(has_edge(a, "m", "n"));
  EXPECT_FALSE(has_edge(a, "m", "o"));
}

TEST(Reachability, DefaultValueCallAndMetaclass) {
  auto a = analysis_of({
      {"m.py",
       "def make():\n    import n\n    return 1\n"
       "class Meta(type):\n    def __new__(mcs, name, bases, ns):\n        import o\n"
       "        return super().__new__(mcs, name, bases, ns)\n"
       "def f(x=make()):\n    pass\n"
       "class K(metaclass=Meta):\n    pass\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "make"));
  EXPECT_TRUE(runs(a, "m", "Meta.__new__"));
  EXPECT_TRUE(has_edge(a, "m", "n"));
  EXPECT_TRUE(has_edge(a, "m", "o"));
}

TEST(Reachability, CallIntoAnotherModulesFunction) {
  auto a = analysis_of({
      {"reg.py", "def register(cls):\n    import plugins\n    return cls\n"},
      {"app.py", "from reg import register\nclass Foo: pass\nregister(Foo)\n"},
      {"plugins.py", ""},
  });
  EXPECT_TRUE(runs(a, "reg", "register"));
  EXPECT_TRUE(has_edge(a, "reg", "plugins"));
}

TEST(Reachability, PostInitAndInheritedInit) {
  auto a = analysis_of({
      {"m.py",
       "class Base:\n    def __init__(self):\n        import n\n"
       "class Child(Base):\n    pass\n"
       "class D:\n    def __post_init__(self):\n        import o\n"
       "x = Child()\ny = D()\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "Base.__init__"));
  EXPECT_TRUE(runs(a, "m", "D.__post_init__"));
  EXPECT_TRUE(has_edge(a, "m", "n"));
  EXPECT_TRUE(has_edge(a, "m", "o"));
}
