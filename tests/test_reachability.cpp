// Import-time reachability: function bodies that module-level code runs, and
// the edges their local imports create.

#include <gtest/gtest.h>

#include "in_memory.hpp"
#include "simulator.hpp"

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
  // The import runs while app's module-level code runs, not reg's: the edge is
  // app's (reg's own import never runs it).
  EXPECT_FALSE(has_edge(a, "reg", "plugins"));
  EXPECT_TRUE(has_edge(a, "app", "plugins"));
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

// The issue-15 shapes: each is a way CPython runs a function body at import
// that the model must see (checked against CPython's trace in tests/oracle/).

TEST(Reachability, FactoryInstantiatesNestedClassThroughLocalAlias) {
  auto a = analysis_of({
      {"v.py",
       "def make_verifier():\n"
       "    class _V:\n        def __init__(self):\n            import n\n"
       "    ret = _V\n    ret = ret()\n    return ret\n"
       "V = make_verifier()\n"},
      {"n.py", ""},
  });
  EXPECT_TRUE(runs(a, "v", "make_verifier"));
  EXPECT_TRUE(runs(a, "v", "make_verifier._V.__init__"));
  EXPECT_TRUE(has_edge(a, "v", "n"));
}

TEST(Reachability, PartialAndModuleAliases) {
  auto a = analysis_of({
      {"m.py",
       "import functools\n"
       "def f(x):\n    import n\n"
       "def g():\n    import o\n"
       "p = functools.partial(f, 1)\nh = g\np()\nh()\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "f"));
  EXPECT_TRUE(runs(a, "m", "g"));
}

TEST(Reachability, DecoratorThatCallsTheDecoratedFunction) {
  auto a = analysis_of({
      {"m.py",
       "def run_now(fn):\n    fn()\n    return fn\n"
       "def keep(fn):\n    return fn\n"
       "@run_now\ndef setup():\n    import n\n"
       "@keep\ndef later():\n    import o\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "setup"));
  EXPECT_FALSE(runs(a, "m", "later"));
  EXPECT_TRUE(has_edge(a, "m", "n"));
  EXPECT_FALSE(has_edge(a, "m", "o"));
}

TEST(Reachability, DecoratorFactoryReturnsTheDecorator) {
  auto a = analysis_of({
      {"m.py",
       "def register(name):\n"
       "    def deco(fn):\n        fn()\n        return fn\n"
       "    return deco\n"
       "def wrapping(name):\n"
       "    def deco(fn):\n        def wrapper(*a):\n            return fn(*a)\n        return wrapper\n"
       "    return deco\n"
       "@register('x')\ndef setup():\n    import n\n"
       "@wrapping('y')\ndef later():\n    import o\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "register"));
  EXPECT_TRUE(runs(a, "m", "setup"));
  EXPECT_TRUE(runs(a, "m", "wrapping"));
  EXPECT_FALSE(runs(a, "m", "wrapping.deco.wrapper"));
  EXPECT_FALSE(runs(a, "m", "later"));
}

TEST(Reachability, ClassDecoratorThatInstantiates) {
  auto a = analysis_of({
      {"m.py",
       "def singleton(cls):\n    return cls()\n"
       "@singleton\nclass Config:\n    def __init__(self):\n        import n\n"},
      {"n.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "Config.__init__"));
}

TEST(Reachability, ClassBodyCallsItsOwnFunctions) {
  auto a = analysis_of({
      {"m.py",
       "class C:\n"
       "    def _make(x):\n        import n\n        return x\n"
       "    @staticmethod\n    def _static():\n        import o\n"
       "    VALUE = _make(1)\n    OTHER = _static()\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "C._make"));
  EXPECT_TRUE(runs(a, "m", "C._static"));
}

TEST(Reachability, MetaclassInitSubclassSetNameClassGetitem) {
  auto a = analysis_of({
      {"base.py",
       "class Meta(type):\n"
       "    def __new__(mcs, name, bases, ns):\n        import n1\n        return super().__new__(mcs, name, bases, ns)\n"
       "    def __call__(cls, *a):\n        import n2\n        return super().__call__(*a)\n"
       "class Base(metaclass=Meta):\n"
       "    def __init_subclass__(cls, **kw):\n        import n3\n"
       "    def __class_getitem__(cls, item):\n        import n4\n        return cls\n"
       "class Field:\n    def __set_name__(self, owner, name):\n        import n5\n"},
      {"app.py",
       "from base import Base, Field\n"
       "class Model(Base):\n    f = Field()\n"
       "Alias = Base[int]\n"},
      {"n1.py", ""}, {"n2.py", ""}, {"n3.py", ""}, {"n4.py", ""}, {"n5.py", ""},
  });
  EXPECT_TRUE(runs(a, "base", "Meta.__new__"));           // Base itself, and Model (inherited metaclass)
  EXPECT_TRUE(runs(a, "base", "Base.__init_subclass__"));  // Model
  EXPECT_TRUE(runs(a, "base", "Field.__set_name__"));
  EXPECT_TRUE(runs(a, "base", "Base.__class_getitem__"));
  EXPECT_FALSE(runs(a, "base", "Meta.__call__"));          // nothing instantiates a Base
  EXPECT_TRUE(has_edge(a, "app", "n3"));                   // charged to the module whose class statement ran it
  EXPECT_FALSE(has_edge(a, "base", "n3"));
}

TEST(Reachability, ModuleGetattrServesAFromImport) {
  auto a = analysis_of({
      {"p/__init__.py", "def __getattr__(name):\n    import n\n    return 1\n"},
      {"p/user.py", "from p import lazy_thing\n"},
      {"n.py", ""},
  });
  EXPECT_TRUE(runs(a, "p", "__getattr__"));
  EXPECT_TRUE(has_edge(a, "p.user", "n"));
}

TEST(Reachability, OverloadStubsAndTheRealDefinition) {
  auto a = analysis_of({
      {"m.py",
       "from typing import overload\n"
       "@overload\ndef f(x: int) -> int: ...\n"
       "@overload\ndef f(x: str) -> str: ...\n"
       "def f(x):\n    import n\n    return x\n"
       "f(1)\n"},
      {"n.py", ""},
  });
  const auto& fns = a.files[0].facts.functions;
  ASSERT_EQ(fns.size(), 3u);
  EXPECT_TRUE(a.reach.body_runs(0, 2));  // the def that is bound last
  EXPECT_FALSE(a.reach.body_runs(0, 0));  // the stubs never run
  EXPECT_FALSE(a.reach.body_runs(0, 1));
  EXPECT_TRUE(has_edge(a, "m", "n"));
}

// The simulator too runs the real def, not the first stub: its import fails.
TEST(Reachability, SimulatorCallsTheDefAfterTheOverloadStubs) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/m.py",
       "from typing import overload\n"
       "@overload\ndef f(x: int) -> int: ...\n"
       "def f(x):\n    from p.n import Y\n    return x\n"
       "f(1)\n"},
      {"p/n.py", "import p.m\nY = 1\n"},
  });
  auto r = simulate(a, EntryMode::Normal);
  bool found = false;
  for (const auto& e : r.entries)
    if (a.modules[e.module].name == "p.n") {
      found = true;
      EXPECT_TRUE(e.fails);
      EXPECT_TRUE(e.circular);
      EXPECT_FALSE(e.uncertain);
    }
  EXPECT_TRUE(found);
}

TEST(Reachability, MainGuardNeverRunsOnImport) {
  auto a = analysis_of({
      {"m.py",
       "def main():\n    import n\n"
       "if __name__ == '__main__':\n    import o\n    main()\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_FALSE(runs(a, "m", "main"));
  EXPECT_FALSE(has_edge(a, "m", "n"));
  EXPECT_FALSE(has_edge(a, "m", "o"));
  EXPECT_EQ(a.files[0].facts.imports[1].context, ImportContext::MainGuard);
}

TEST(Reachability, SuperCallsAndInheritedMethods) {
  auto a = analysis_of({
      {"m.py",
       "class A:\n    def __init__(self):\n        import n\n    def setup(self):\n        import o\n"
       "class B(A):\n    def __init__(self):\n        super().__init__()\n        self.setup()\n"
       "b = B()\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "A.__init__"));
  EXPECT_TRUE(runs(a, "m", "A.setup"));
}

TEST(Reachability, InstanceAliasesCallTheirClassesMethods) {
  auto a = analysis_of({
      {"m.py",
       "class Domain:\n    def __call__(self, x):\n        import n\n    def convert(self, x):\n        import o\n"
       "ZZ = Domain()\nONE = ZZ(1)\nTWO = ZZ.convert(2)\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "Domain.__call__"));
  EXPECT_TRUE(runs(a, "m", "Domain.convert"));
  EXPECT_FALSE(a.reach.assumed[0][function_index(a.files[0].facts, "Domain.convert")]);
}

TEST(Reachability, DecoratedFunctionsRunTheirWrappers) {
  auto a = analysis_of({
      {"m.py",
       "def cacheit(fn):\n    def wrapper(*a):\n        import n\n        return fn(*a)\n    return wrapper\n"
       "def deprecated(msg):\n    def deco(fn):\n        import o\n        return fn\n    return deco\n"
       "@cacheit\ndef f(x):\n    return x\n"
       "@deprecated('old')\ndef g():\n    pass\n"
       "f(1)\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  EXPECT_TRUE(runs(a, "m", "cacheit.wrapper"));  // f(1) runs the wrapper
  EXPECT_TRUE(runs(a, "m", "deprecated.deco"));  // applying @deprecated('old') runs deco
  EXPECT_FALSE(runs(a, "m", "g"));
}

TEST(Reachability, UnresolvedMethodCallIsAssumed) {
  auto a = analysis_of({
      {"m.py",
       "class Registry:\n    def enroll(self, x):\n        import n\n    def append(self, x):\n        import o\n"
       "def use(r):\n    r.enroll(2)\n    r.append(3)\n"  // r's type is not known
       "use(Registry())\n"},
      {"n.py", ""},
      {"o.py", ""},
  });
  int f = 0;
  int add = function_index(a.files[f].facts, "Registry.enroll");
  // A name the builtin containers also have is taken to be theirs.
  EXPECT_FALSE(a.reach.body_runs(f, function_index(a.files[f].facts, "Registry.append")));
  // An assumed body pins, but makes no edge.
  EXPECT_FALSE(has_edge(a, "m", "n"));
  ASSERT_GE(add, 0);
  EXPECT_TRUE(a.reach.body_runs(f, add));
  EXPECT_TRUE(a.reach.assumed[f][add]);
}

// `self.m()` may run a subclass's override (virtual dispatch): assumed, in
// another file too; the base's own `m` stays exact.
TEST(Reachability, SelfCallsReachSubclassOverrides) {
  auto a = analysis_of({
      {"base.py", "class Base:\n    def run(self):\n        return self.hook()\n    def hook(self):\n        return 1\n"},
      {"impl.py", "from base import Base\nclass Impl(Base):\n    def hook(self):\n        import extra\n"
                  "class Deeper(Impl):\n    def hook(self):\n        return 3\n"
                  "x = Impl()\nx.run()\n"},
      {"extra.py", ""},
  });
  const int base = 0, impl = 1;  // in the order given
  ASSERT_EQ(a.files[impl].source.module, "impl");
  int own = function_index(a.files[base].facts, "Base.hook");
  int over = function_index(a.files[impl].facts, "Impl.hook");
  int deeper = function_index(a.files[impl].facts, "Deeper.hook");
  EXPECT_TRUE(a.reach.body_runs(base, own));
  EXPECT_FALSE(a.reach.assumed[base][own]);
  EXPECT_TRUE(a.reach.body_runs(impl, over));
  EXPECT_TRUE(a.reach.assumed[impl][over]);
  EXPECT_TRUE(a.reach.body_runs(impl, deeper));
  EXPECT_FALSE(has_edge(a, "impl", "extra"));  // an assumed body makes no edge
}

// A call through a name that an import inside the calling function bound (an
// import a fix moved there): the callee still runs. Without it the oracle lost
// a body on every golden whose fix moved an import into a body that runs.
TEST(Reachability, CallThroughAFunctionLocalImport) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/a.py",
       "def build():\n    from p.b import make\n    import p.c\n    return make(), p.c.other()\n"
       "X = build()\n"},
      {"p/b.py", "def make():\n    return 1\ndef unused():\n    return 2\n"},
      {"p/c.py", "def other():\n    return 3\n"},
      {"p/d.py", "def build():\n    return make()\ndef make():\n    return 4\n"},
  });
  EXPECT_TRUE(runs(a, "p.a", "build"));
  EXPECT_TRUE(runs(a, "p.b", "make"));
  EXPECT_TRUE(runs(a, "p.c", "other"));
  EXPECT_FALSE(runs(a, "p.b", "unused"));
  EXPECT_FALSE(runs(a, "p.d", "make"));  // the local import binds `make` in p.a.build only
}

// Star imports (the last one that exports the name, by __all__ or as a public
// name) and a factory's returned nested def called through a module-level alias
// (Django's `forms.ChoiceField(...)` and `_ = gettext_lazy` shapes).
TEST(Reachability, StarImportsAndFactoryProducts) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/fields.py",
       "__all__ = ['Field']\nclass Field:\n    def __init__(self):\n        pass\n"
       "class Hidden:\n    def __init__(self):\n        pass\n"},
      {"p/forms.py", "from p.fields import *\n"},
      {"p/lazy.py",
       "def lazy(f):\n    def wrapper(*a):\n        return f(*a)\n    return wrapper\n"
       "def gettext(m):\n    return m\n"
       "gettext_lazy = lazy(gettext)\n"},
      {"p/use.py",
       "from p import forms\nfrom p.lazy import gettext_lazy as _\n"
       "class F:\n    name = forms.Field()\n    label = _('x')\n"
       "    if False:\n        hidden = forms.Hidden()\n"},
  });
  EXPECT_TRUE(runs(a, "p.fields", "Field.__init__"));
  EXPECT_FALSE(runs(a, "p.fields", "Hidden.__init__"));  // not in __all__: forms has no Hidden
  EXPECT_TRUE(runs(a, "p.lazy", "lazy.wrapper"));
}

// What a callee does with what it is given: a class passed as an argument
// that the callee calls, a partial's keyword, a property read on an imported
// instance (inside a function that imports it), the __setattr__ a constructor
// runs, a descriptor decorator's __get__, a base made by a classmethod.
TEST(Reachability, ArgumentsPropertiesAndDescriptors) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/conf.py",
       "from functools import partial\n"
       "def _path(route, Pattern=None):\n    return Pattern(route)\n"
       "class Route:\n    def __init__(self, r):\n        pass\n"
       "class Unused:\n    def __init__(self, r):\n        pass\n"
       "path = partial(_path, Pattern=Route)\n"
       "def register(cb, other):\n    cb()\n"
       "class Settings:\n"
       "    def __setattr__(self, k, v):\n        pass\n"
       "    @property\n    def configured(self):\n        return True\n"
       "    @property\n    def never(self):\n        return True\n"
       "settings = Settings()\n"
       "class classonly(classmethod):\n    def __get__(self, i, c=None):\n        return super().__get__(i, c)\n"
       "class View:\n    @classonly\n    def as_view(cls):\n        return cls\n"
       "class Base:\n    def __init__(self):\n        pass\n"
       "    @classmethod\n    def make(cls):\n        return type('X', (cls,), {})\n"
       "class Derived(Base.make()):\n    pass\n"},
      {"p/use.py",
       "from p.conf import path, register, Unused, View, Derived\n"
       "class Handler:\n    def __init__(self):\n        pass\n"
       "class Passed:\n    def __init__(self):\n        pass\n"
       "def connect():\n    from p.conf import settings\n    return settings.configured\n"
       "urls = [path('x')]\n"
       "register(Handler, Passed)\n"
       "connect()\n"
       "View.as_view()\n"
       "d = Derived()\n"},
  });
  EXPECT_TRUE(runs(a, "p.conf", "Route.__init__"));
  EXPECT_FALSE(runs(a, "p.conf", "Unused.__init__"));
  EXPECT_TRUE(runs(a, "p.use", "Handler.__init__"));
  EXPECT_FALSE(runs(a, "p.use", "Passed.__init__"));  // register never calls `other`
  EXPECT_TRUE(runs(a, "p.conf", "Settings.configured"));
  EXPECT_FALSE(runs(a, "p.conf", "Settings.never"));
  EXPECT_TRUE(runs(a, "p.conf", "Settings.__setattr__"));
  EXPECT_TRUE(runs(a, "p.conf", "classonly.__get__"));
  EXPECT_TRUE(runs(a, "p.conf", "Base.__init__"));
}

// A lazy proxy: the class of what a factory returns, an attribute it lacks
// served by a `__getattr__` that is a class attribute made by a factory; a
// class instance as decorator runs its __call__.
TEST(Reachability, LazyProxiesAndDecoratorInstances) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/lazy.py",
       "def proxy(func):\n    def inner(self, *args):\n        return func(self, *args)\n    return inner\n"
       "class Lazy:\n    __getattr__ = proxy(getattr)\n    def known(self):\n        pass\n"
       "def make():\n    return Lazy()\n"
       "class deco:\n    def __init__(self, **kw):\n        pass\n    def __call__(self, f):\n        return f\n"},
      {"p/use.py",
       "from p.lazy import make, deco\n"
       "x = make()\n"
       "y = x.missing.lower()\n"
       "@deco(a=1)\nclass C:\n    pass\n"},
      {"p/known.py", "from p.lazy import make\nz = make()\nz.known()\n"},
  });
  EXPECT_TRUE(runs(a, "p.lazy", "proxy.inner"));
  EXPECT_TRUE(runs(a, "p.lazy", "deco.__call__"));
  EXPECT_TRUE(runs(a, "p.lazy", "Lazy.known"));
}

// A class handed on from parameter to parameter and called in a closure
// (Django's decorator_from_middleware): assumed to run, since the closure may
// run later; a class handed on but never called is not reached.
TEST(Reachability, ParametersHandedOnToClosures) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/deco.py",
       "def make_decorator(middleware_class, unused):\n"
       "    def _make(*a):\n"
       "        def _decorator(view):\n"
       "            return middleware_class(view)\n"
       "        return _decorator\n"
       "    return _make\n"
       "def decorator_from(middleware_class, other):\n"
       "    return make_decorator(middleware_class, other)()\n"},
      {"p/use.py",
       "from p.deco import decorator_from\n"
       "class Middleware:\n    def __init__(self, view):\n        pass\n"
       "class Other:\n    def __init__(self):\n        pass\n"
       "protect = decorator_from(Middleware, Other)\n"},
  });
  const int use = 2;
  int mw = function_index(a.files[use].facts, "Middleware.__init__");
  ASSERT_GE(mw, 0);
  EXPECT_TRUE(a.reach.body_runs(use, mw));
  EXPECT_TRUE(a.reach.assumed[use][mw]);
  EXPECT_FALSE(runs(a, "p.use", "Other.__init__"));
}

// `a + b` on a module-level instance runs its class's __add__, exactly (and
// what that calls); an operator on a value of unknown class runs every
// first-party method of that name, assumed and not walked; a class as operand
// (`Cls | None`) runs its metaclass's method, not the class's own.
TEST(Reachability, OperatorsRunProtocolMethods) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/num.py",
       "def helper():\n    pass\n"
       "def deep():\n    pass\n"
       "class Num:\n"
       "    def __add__(self, other):\n        helper()\n        return self\n"
       "    def __or__(self, other):\n        return self\n"
       "class Key:\n"
       "    def __hash__(self):\n        deep()\n        return 1\n"
       "    def __len__(self):\n        return 0\n"},
      {"p/use.py",
       "from p.num import Num, Key\n"
       "ONE = Num()\n"
       "TWO = ONE + ONE\n"
       "U = Num | None\n"
       "def lookup(k):\n    return {k: 1}\n"
       "T = lookup(2)\n"},
  });
  EXPECT_TRUE(runs(a, "p.num", "Num.__add__"));
  EXPECT_TRUE(runs(a, "p.num", "helper"));
  EXPECT_FALSE(runs(a, "p.num", "Num.__or__"));
  const int num = 1;
  int hash = function_index(a.files[num].facts, "Key.__hash__");
  ASSERT_GE(hash, 0);
  EXPECT_TRUE(a.reach.body_runs(num, hash));
  EXPECT_TRUE(a.reach.assumed[num][hash]);
  EXPECT_EQ(a.reach.assumption[num][hash], cyclefix::Reachability::Assumption::Operator);
  EXPECT_FALSE(runs(a, "p.num", "deep"));  // listed, not walked
  EXPECT_FALSE(runs(a, "p.num", "Key.__len__"));
}

// A first-party decorator that returns `property(getter)` (SymPy's
// memoize_property): reading the attribute on a module-level instance runs the
// getter it made, and the getter the decorated function.
TEST(Reachability, DecoratorReturningAProperty) {
  auto a = analysis_of({
      {"p/__init__.py", ""},
      {"p/deco.py",
       "def memoize_property(propfunc):\n"
       "    def accessor(self):\n"
       "        return propfunc(self)\n"
       "    return property(accessor)\n"},
      {"p/keys.py",
       "from p.deco import memoize_property\n"
       "class Keys:\n"
       "    @memoize_property\n    def eq(self):\n        return 1\n"
       "    @memoize_property\n    def ne(self):\n        return 2\n"
       "Q = Keys()\n"},
      {"p/use.py", "from p.keys import Q\nE = Q.eq\n"},
  });
  EXPECT_TRUE(runs(a, "p.keys", "Keys.eq"));
  EXPECT_TRUE(runs(a, "p.deco", "memoize_property.accessor"));
  EXPECT_FALSE(runs(a, "p.keys", "Keys.ne"));
}
