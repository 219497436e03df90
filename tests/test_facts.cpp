// Facts collection on in-memory sources: import statements, their contexts and
// spans, and the classification of every use of an imported name.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "facts.hpp"
#include "ts.hpp"

using namespace cyclefix;

namespace {

std::vector<const NameUse*> uses_of(const ModuleFacts& f, const std::string& name) {
  std::vector<const NameUse*> out;
  for (const auto& u : f.uses)
    if (u.name() == name) out.push_back(&u);
  return out;
}

// The single use of `name`, failing the test when there is not exactly one.
const NameUse& only_use(const ModuleFacts& f, const std::string& name) {
  auto u = uses_of(f, name);
  static const NameUse none{};
  EXPECT_EQ(u.size(), 1u) << "uses of " << name;
  return u.empty() ? none : *u.front();
}

}  // namespace

TEST(FactsImports, PlainImportWithAliasAndDottedName) {
  auto f = collect_facts("import os\nimport a.b.c\nimport a.b as c, d\n");
  ASSERT_EQ(f.imports.size(), 3u);
  EXPECT_FALSE(f.imports[1].is_from);
  EXPECT_EQ(f.imports[1].names[0].name, "a.b.c");
  EXPECT_EQ(f.imports[1].bound_names(), std::vector<std::string>{"a"});
  EXPECT_EQ(f.imports[2].names[0].asname, "c");
  EXPECT_EQ(f.imports[2].bound_names(), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(f.imports[2].line, 3);
}

TEST(FactsImports, RelativeLevelsOneToThree) {
  auto f = collect_facts("from . import x\nfrom ..pkg.mod import y as z\nfrom ... import w\n");
  ASSERT_EQ(f.imports.size(), 3u);
  EXPECT_EQ(f.imports[0].level, 1);
  EXPECT_EQ(f.imports[0].module, "");
  EXPECT_EQ(f.imports[1].level, 2);
  EXPECT_EQ(f.imports[1].module, "pkg.mod");
  EXPECT_EQ(f.imports[1].names[0].name, "y");
  EXPECT_EQ(f.imports[1].bound_names(), std::vector<std::string>{"z"});
  EXPECT_EQ(f.imports[2].level, 3);
}

TEST(FactsImports, StarImportBindsNothing) {
  auto f = collect_facts("from .models import *\n");
  ASSERT_EQ(f.imports.size(), 1u);
  EXPECT_TRUE(f.imports[0].star);
  EXPECT_TRUE(f.imports[0].bound_names().empty());
}

TEST(FactsImports, TypeCheckingBranchAndElse) {
  auto f = collect_facts(
      "from typing import TYPE_CHECKING\n"
      "if TYPE_CHECKING:\n    from a import A\nelse:\n    from b import B\n"
      "import typing\nif typing.TYPE_CHECKING:\n    import c\n");
  ASSERT_EQ(f.imports.size(), 5u);
  EXPECT_EQ(f.imports[1].context, ImportContext::TypeChecking);
  EXPECT_FALSE(f.imports[1].at_import_time);
  EXPECT_EQ(f.imports[2].context, ImportContext::TypeCheckingElse);
  EXPECT_TRUE(f.imports[2].at_import_time);
  EXPECT_EQ(f.imports[4].context, ImportContext::TypeChecking);
}

TEST(FactsImports, NotTypeCheckingRunsItsBody) {
  auto f = collect_facts("if not TYPE_CHECKING:\n    import a\nelse:\n    import b\n");
  ASSERT_EQ(f.imports.size(), 2u);
  EXPECT_TRUE(f.imports[0].at_import_time);
  EXPECT_FALSE(f.imports[1].at_import_time);
}

TEST(FactsImports, TryExceptImportErrorAndConditional) {
  auto f = collect_facts(
      "try:\n    import fast\nexcept ImportError:\n    import slow\n"
      "try:\n    import x\nfinally:\n    pass\n"
      "if sys.version_info > (3,):\n    import y\n");
  ASSERT_EQ(f.imports.size(), 4u);
  EXPECT_EQ(f.imports[0].context, ImportContext::TryExcept);
  EXPECT_TRUE(f.imports[0].guards_import_error);
  EXPECT_TRUE(f.imports[1].guards_import_error);
  EXPECT_FALSE(f.imports[2].guards_import_error);
  EXPECT_EQ(f.imports[3].context, ImportContext::ConditionalIf);
  EXPECT_TRUE(f.imports[3].at_import_time);
}

TEST(FactsImports, ClassAndFunctionBodies) {
  auto f = collect_facts(
      "class C:\n    import a\n    def m(self):\n        import b\n"
      "def f():\n    from c import d\n");
  ASSERT_EQ(f.imports.size(), 3u);
  EXPECT_EQ(f.imports[0].context, ImportContext::ClassBody);
  EXPECT_TRUE(f.imports[0].at_import_time);
  EXPECT_EQ(f.imports[1].context, ImportContext::FunctionBody);
  EXPECT_EQ(f.imports[1].scope, "C.m");
  EXPECT_FALSE(f.imports[1].at_import_time);
  EXPECT_EQ(f.imports[2].scope, "f");
}

TEST(FactsImports, SpanTakesLeadingCommentAndTrailingComment) {
  std::string src =
      "import os\n\n# why we need b\nfrom b import (  # first\n    x,\n    y,\n)  # tail\nz = 1\n";
  auto f = collect_facts(src);
  ASSERT_EQ(f.imports.size(), 2u);
  const auto& s = f.imports[1];
  EXPECT_EQ(src.substr(s.span_begin, s.span_end - s.span_begin),
            "# why we need b\nfrom b import (  # first\n    x,\n    y,\n)  # tail\n");
  EXPECT_EQ(s.line, 4);
  EXPECT_FALSE(s.shares_line);
  EXPECT_EQ(s.bound_names(), (std::vector<std::string>{"x", "y"}));
}

TEST(FactsImports, BackslashContinuationIsOneSpan) {
  std::string src = "from pkg.mod import a, \\\n    b\nx = 1\n";
  auto f = collect_facts(src);
  ASSERT_EQ(f.imports.size(), 1u);
  EXPECT_EQ(src.substr(f.imports[0].span_begin, f.imports[0].span_end - f.imports[0].span_begin),
            "from pkg.mod import a, \\\n    b\n");
}

TEST(FactsImports, SemicolonSharesLine) {
  std::string src = "import a; import b\n";
  auto f = collect_facts(src);
  ASSERT_EQ(f.imports.size(), 2u);
  EXPECT_TRUE(f.imports[0].shares_line);
  EXPECT_TRUE(f.imports[1].shares_line);
  EXPECT_EQ(src.substr(f.imports[1].span_begin, f.imports[1].span_end - f.imports[1].span_begin),
            "import b");
}

TEST(FactsImports, CrlfSpanKeepsLineEnding) {
  std::string src = "import a  # note\r\nx = 1\r\n";
  auto f = collect_facts(src);
  ASSERT_EQ(f.imports.size(), 1u);
  EXPECT_EQ(f.imports[0].span_end, src.find("x = 1"));
}

TEST(FactsUses, ModuleLevelUseIsImportTime) {
  auto f = collect_facts("from m import X\nY = X()\n");
  auto& u = only_use(f, "X");
  EXPECT_EQ(u.kind, UseKind::ImportTime);
  EXPECT_EQ(u.line, 2);
}

TEST(FactsUses, FunctionBodyUseIsDeferred) {
  auto f = collect_facts("from m import X\ndef f():\n    return X()\n");
  auto& u = only_use(f, "X");
  EXPECT_EQ(u.kind, UseKind::Deferred);
  EXPECT_EQ(f.function_name(u), "f");
  EXPECT_EQ(f.scope_name(u), "f");
}

TEST(FactsUses, NestedFunctionAndMethod) {
  auto f = collect_facts(
      "from m import X\nclass C:\n    def m(self):\n        def inner():\n            return X\n"
      "        return inner\n");
  auto& u = only_use(f, "X");
  EXPECT_EQ(u.kind, UseKind::Deferred);
  EXPECT_EQ(f.function_name(u), "C.m.inner");
  EXPECT_EQ(f.scope_name(u), "C.m.inner");
  // In a class body inside a function: the function, and the class as the scope.
  auto g = collect_facts("from m import X\ndef make():\n    class K:\n        y: X = X()\n    return K\n");
  for (const NameUse& k : g.uses) {
    EXPECT_EQ(g.function_name(k), "make");
    EXPECT_EQ(g.scope_name(k), "make.K");
  }
  EXPECT_FALSE(g.uses.empty());
}

TEST(FactsUses, LambdaBodyIsDeferredButDefaultIsNot) {
  auto f = collect_facts("from m import X, Y\nf = lambda a=Y: X(a)\n");
  EXPECT_EQ(only_use(f, "X").kind, UseKind::Deferred);
  EXPECT_EQ(only_use(f, "Y").kind, UseKind::ImportTime);
  EXPECT_STREQ(only_use(f, "Y").where, "default value");
}

TEST(FactsUses, ModuleLevelComprehensionRunsNow) {
  auto f = collect_facts("from m import X\nvals = [X(i) for i in range(3)]\n");
  auto& u = only_use(f, "X");
  EXPECT_EQ(u.kind, UseKind::ImportTime);
  EXPECT_STREQ(u.where, "comprehension");
}

TEST(FactsUses, ComprehensionTargetShadows) {
  auto f = collect_facts("from m import X\nvals = [X for X in range(3)]\n");
  EXPECT_TRUE(uses_of(f, "X").empty());
}

TEST(FactsUses, ClassBodyAndBaseClassAndKeyword) {
  auto f = collect_facts(
      "from m import Base, Meta, V\nclass C(Base, metaclass=Meta):\n    attr = V\n");
  EXPECT_STREQ(only_use(f, "Base").where, "base class");
  EXPECT_EQ(only_use(f, "Base").kind, UseKind::ImportTime);
  EXPECT_STREQ(only_use(f, "Meta").where, "class keyword");
  EXPECT_STREQ(only_use(f, "V").where, "class body");
  EXPECT_EQ(only_use(f, "V").kind, UseKind::ImportTime);
}

TEST(FactsUses, DecoratorIsImportTimeEvenOnMethods) {
  auto f = collect_facts(
      "from m import deco, other\n@deco\ndef f():\n    pass\nclass C:\n    @other.wrap\n"
      "    def g(self):\n        pass\n");
  EXPECT_STREQ(only_use(f, "deco").where, "decorator");
  EXPECT_EQ(only_use(f, "deco").kind, UseKind::ImportTime);
  EXPECT_EQ(only_use(f, "other").kind, UseKind::ImportTime);
  EXPECT_EQ(only_use(f, "other").dotted, "other.wrap");
}

TEST(FactsUses, DecoratorOnNestedFunctionIsDeferred) {
  auto f = collect_facts("from m import deco\ndef outer():\n    @deco\n    def inner():\n        pass\n");
  EXPECT_EQ(only_use(f, "deco").kind, UseKind::Deferred);
}

TEST(FactsUses, DefaultValueIsImportTime) {
  auto f = collect_facts("from m import DEFAULT\ndef f(x=DEFAULT):\n    return x\n");
  EXPECT_EQ(only_use(f, "DEFAULT").kind, UseKind::ImportTime);
  EXPECT_STREQ(only_use(f, "DEFAULT").where, "default value");
}

TEST(FactsUses, AnnotationsEagerWithoutFutureImport) {
  auto f = collect_facts("from m import A, R\ndef f(x: A) -> R:\n    pass\n");
  EXPECT_EQ(only_use(f, "A").kind, UseKind::Annotation);
  EXPECT_TRUE(only_use(f, "A").eager);
  EXPECT_TRUE(only_use(f, "R").eager);
}

TEST(FactsUses, AnnotationsLazyWithFutureImport) {
  auto f = collect_facts(
      "from __future__ import annotations\nfrom m import A\ndef f(x: A) -> A:\n    pass\n");
  EXPECT_TRUE(f.future_annotations);
  auto u = uses_of(f, "A");
  ASSERT_EQ(u.size(), 2u);
  for (auto* x : u) {
    EXPECT_EQ(x->kind, UseKind::Annotation);
    EXPECT_FALSE(x->eager);
  }
}

TEST(FactsUses, StringAnnotationIsNeverEvaluated) {
  auto f = collect_facts("from m import A, B\ndef f(x: \"A\", y: list[\"B.C\"]) -> None:\n    pass\n");
  auto& a = only_use(f, "A");
  EXPECT_EQ(a.kind, UseKind::Annotation);
  EXPECT_TRUE(a.in_string);
  EXPECT_FALSE(a.eager);
  EXPECT_EQ(only_use(f, "B").dotted, "B.C");
}

TEST(FactsUses, VariableAnnotationAtModuleAndInFunction) {
  auto f = collect_facts("from m import A, B\nx: A = 1\ndef f():\n    y: B = 2\n");
  EXPECT_TRUE(only_use(f, "A").eager);
  EXPECT_EQ(only_use(f, "B").kind, UseKind::Annotation);
  EXPECT_FALSE(only_use(f, "B").eager);
}

TEST(FactsUses, ParameterShadowsImport) {
  auto f = collect_facts("from m import X\ndef f(X):\n    return X\n");
  EXPECT_TRUE(uses_of(f, "X").empty());
}

TEST(FactsUses, LocalAssignmentShadowsWholeFunction) {
  auto f = collect_facts("from m import X\ndef f():\n    print(X)\n    X = 3\n");
  EXPECT_TRUE(uses_of(f, "X").empty());
}

TEST(FactsUses, GlobalDeclarationDoesNotShadow) {
  auto f = collect_facts("from m import X\ndef f():\n    global X\n    X = X + 1\n");
  EXPECT_EQ(uses_of(f, "X").size(), 1u);
}

TEST(FactsUses, ClassScopeDoesNotShadowMethods) {
  auto f = collect_facts("from m import X\nclass C:\n    X = 1\n    def m(self):\n        return X\n");
  auto u = uses_of(f, "X");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0]->kind, UseKind::Deferred);
}

TEST(FactsUses, AttributeChainOfDottedImport) {
  auto f = collect_facts("import a.b.c\ndef f():\n    return a.b.c.g()\n");
  EXPECT_EQ(only_use(f, "a").dotted, "a.b.c.g");
}

TEST(FactsUses, AttributeNameIsNotAUse) {
  auto f = collect_facts("from m import X\nobj.X = 1\nprint(obj.X)\n");
  EXPECT_TRUE(uses_of(f, "X").empty());
}

TEST(FactsUses, KeywordArgumentNameIsNotAUse) {
  auto f = collect_facts("from m import X\nf(X=1)\n");
  EXPECT_TRUE(uses_of(f, "X").empty());
}

TEST(FactsUses, UseInsideTypeCheckingBlockIsAnnotationOnly) {
  auto f = collect_facts("from m import X\nif TYPE_CHECKING:\n    Alias = X\n");
  EXPECT_EQ(only_use(f, "X").kind, UseKind::Annotation);
}

TEST(FactsUses, NamesOnlyFromModuleLevelImports) {
  auto f = collect_facts("def f():\n    from m import X\n    return X\n");
  EXPECT_TRUE(f.uses.empty());
}

TEST(FactsModule, DefinitionsInOrder) {
  auto f = collect_facts("import os\nA = 1\ndef f(): pass\nclass C: pass\nif x:\n    B = 2\n");
  std::vector<std::string> names;
  for (auto& d : f.definitions) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"os", "A", "f", "C", "B"}));
  EXPECT_EQ(f.definitions[2].kind, Definition::Kind::Function);
}

TEST(FactsModule, DunderAll) {
  auto f = collect_facts("__all__ = ['a', \"b\"]\n__all__ += ('c',)\n__all__.extend(['d'])\n");
  ASSERT_TRUE(f.dunder_all.has_value());
  EXPECT_EQ(*f.dunder_all, (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(FactsModule, DynamicImports) {
  auto f = collect_facts(
      "import importlib\nm = importlib.import_module('pkg.plugins')\nn = __import__(name)\n");
  ASSERT_EQ(f.dynamic_imports.size(), 2u);
  EXPECT_EQ(f.dynamic_imports[0].argument, "pkg.plugins");
  EXPECT_EQ(f.dynamic_imports[0].line, 2);
  EXPECT_EQ(f.dynamic_imports[1].call, "__import__");
  EXPECT_EQ(f.dynamic_imports[1].argument, "");
}

TEST(FactsModule, FunctionsWithBodiesAndLocals) {
  auto f = collect_facts(
      "class C:\n    async def m(self, a, *args, k=1, **kw):\n        \"\"\"doc\"\"\"\n        x = 1\n");
  ASSERT_EQ(f.functions.size(), 1u);
  const auto& fn = f.functions[0];
  EXPECT_EQ(fn.qualified_name, "C.m");
  EXPECT_EQ(fn.class_name, "C");
  EXPECT_TRUE(fn.is_async);
  EXPECT_EQ(fn.locals, (std::vector<std::string>{"a", "args", "k", "kw", "self", "x"}));
  EXPECT_EQ(fn.body_line, 3);
  // Named parameters, in order (a keyword-only one too, not *args or **kw),
  // stored as indexes into the locals.
  std::vector<std::string> params;
  for (std::size_t i = 0; i < fn.param_count(); ++i) params.push_back(fn.param(i));
  EXPECT_EQ(params, (std::vector<std::string>{"self", "a", "k"}));
  EXPECT_TRUE(fn.has_param("a"));
  EXPECT_FALSE(fn.has_param("x"));
}

TEST(FactsModule, LocalsBoundOnlyByImports) {
  auto f = collect_facts(
      "def f(p):\n    import os\n    import y\n    y = 2\n    from m import z as w\n    for i in p:\n"
      "        import os.path\n    x = 1\n");
  ASSERT_EQ(f.functions.size(), 1u);
  const auto& fn = f.functions[0];
  EXPECT_EQ(fn.locals, (std::vector<std::string>{"i", "os", "p", "w", "x", "y"}));
  // Only the complement is stored: a large tree has 1.3 M locals and few of these.
  EXPECT_EQ(fn.import_only, (std::vector<std::string>{"os", "w"}));
  for (const char* n : {"p", "x", "y", "i"}) EXPECT_TRUE(fn.bound_otherwise(n)) << n;
  for (const char* n : {"os", "w", "z", "absent"}) EXPECT_FALSE(fn.bound_otherwise(n)) << n;
}

TEST(FactsModule, SyntaxErrorsAreReportedWithLine) {
  auto f = collect_facts("import a\ndef f(:\n    pass\nimport b\n");
  ASSERT_FALSE(f.syntax_problems.empty());
  EXPECT_EQ(f.syntax_problems[0].line, 2);
  EXPECT_GE(f.imports.size(), 1u);  // still analysed where possible
}

TEST(FactsModule, EmptySource) {
  auto f = collect_facts("");
  EXPECT_TRUE(f.imports.empty());
  EXPECT_TRUE(f.syntax_problems.empty());
  EXPECT_EQ(f.lines, 0u);
}

TEST(FactsModule, DeepNestingDoesNotCrash) {
  std::string src = "x = " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  auto f = collect_facts(src);
  EXPECT_FALSE(f.syntax_problems.empty());
}

TEST(FactsModule, BodiesThatReadAnnotations) {
  auto f = collect_facts(
      "import typing, inspect\n"
      "def a(cls):\n    return typing.get_type_hints(cls)\n"
      "def b(fn):\n    return inspect.get_annotations(fn, eval_str=True)\n"
      "def c(cls):\n    return [x for x in cls.__annotations__]\n"
      "def d(cls):\n    return cls.__name__\n");
  ASSERT_EQ(f.functions.size(), 4u);
  EXPECT_TRUE(f.functions[0].reads_annotations);
  EXPECT_TRUE(f.functions[1].reads_annotations);
  EXPECT_TRUE(f.functions[2].reads_annotations);  // inside a comprehension: still the def's body
  EXPECT_FALSE(f.functions[3].reads_annotations);
}

// `typing.cast("Name", x)`: the names in the string are annotation uses, not
// evaluated (a TYPE_CHECKING import serves them); other strings are not read.
TEST(FactsUses, CastStringsAreAnnotationUses) {
  auto f = collect_facts(
      "import typing\nfrom typing import cast\nfrom m import Node, Leaf\n"
      "def f(x):\n    y = cast('Node', x)\n    return typing.cast(\"list[Leaf]\", y), print('Leaf')\n");
  std::vector<std::string> got;
  for (const auto& u : f.uses) {
    if (u.name() != "Node" && u.name() != "Leaf") continue;
    EXPECT_EQ(u.kind, UseKind::Annotation) << u.name();
    EXPECT_TRUE(u.in_string) << u.name();
    EXPECT_FALSE(u.eager) << u.name();
    got.push_back(std::string(u.name()) + ":" + std::to_string(u.line));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"Node:5", "Leaf:6"}));
}

// `for dep in ("numpy", "pytz"): __import__(dep)`: one dynamic import per value.
TEST(FactsModule, DynamicImportsOverALoopOfLiterals) {
  auto f = collect_facts("for dep in ('numpy', \"pytz\"):\n    __import__(dep)\nfor x in (a, 'b'):\n    __import__(x)\n");
  ASSERT_EQ(f.dynamic_imports.size(), 3u);
  EXPECT_EQ(f.dynamic_imports[0].argument, "numpy");
  EXPECT_EQ(f.dynamic_imports[1].argument, "pytz");
  EXPECT_EQ(f.dynamic_imports[1].line, 2);
  EXPECT_EQ(f.dynamic_imports[2].argument, "");  // not every value is a literal
}

// Tests the simulator decides for its target interpreter become guards.
TEST(FactsModule, PlatformAndVersionTestsBecomeGuards) {
  auto f = collect_facts(
      "import sys, os\n"
      "if sys.platform == 'win32':\n    import a\n"
      "elif sys.platform.startswith(\"darwin\"):\n    import b\n"
      "else:\n    import c\n"
      "if sys.version_info >= (3, 8) and not __debug__:\n    import d\n"
      "if sys.version_info[:2] < (3, 10) or os.name != 'nt':\n    import e\n"
      "if sys.platform == 'win32' and FAST:\n    import g\n");
  std::vector<std::string> got;
  for (const Event& e : f.events) {
    if (e.kind != Event::Kind::Import) continue;
    got.push_back(e.guard < 0 ? "-" : f.guards[e.guard]);
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "-",  // import sys, os
                     "sys.platform==win32",
                     "!(sys.platform==win32)&&sys.platform^=darwin",
                     "!(sys.platform==win32)&&!(sys.platform^=darwin)",
                     "(sys.version_info>=3,8&&!(__debug__))",
                     "(sys.version_info[:2]<3,10||os.name!=nt)",
                     "-",  // FAST: not decidable
                 }));
}

// Each import event of the functions of `f`: "module guard conditional".
std::vector<std::string> function_imports(const ModuleFacts& f) {
  std::vector<std::string> got;
  for (const FunctionInfo& fn : f.functions)
    for (const Event& e : fn.events)
      if (e.kind == Event::Kind::Import)
        got.push_back(f.imports[e.import].names[0].name + " " + (e.guard < 0 ? "-" : f.guards[e.guard]) +
                      (e.conditional ? " conditional" : ""));
  return got;
}

// What follows `if T: return` (or raise) in a function runs only when T is
// false: under !(T) when the simulator decides T, in a conditional branch
// otherwise. An if with an else, or a body that does not leave, changes nothing.
TEST(FactsModule, EarlyReturnsGuardWhatFollows) {
  auto f = collect_facts(
      "import sys\n"
      "def setup(x):\n"
      "    if sys.platform != 'win32':\n"
      "        return\n"
      "    import a\n"
      "    if x:\n"
      "        raise ValueError(x)\n"
      "        # unreachable comment\n"
      "    import b\n"
      "def plain(x):\n"
      "    if x:\n"
      "        y = 1\n"
      "    else:\n"
      "        return\n"
      "    import c\n"
      "    if x:\n"
      "        print(x)\n"
      "    import d\n");
  EXPECT_EQ(function_imports(f), (std::vector<std::string>{
                                     "a !(sys.platform!=win32)",
                                     "b !(sys.platform!=win32) conditional",
                                     "c -",
                                     "d -",
                                 }));
}

// In a metaclass's __new__/__init__(mcs, name, bases, ns), a test of the bases
// against a tuple of names is decided per class statement: "bases==A,B".
TEST(FactsModule, MetaclassBasesTestsBecomeGuards) {
  auto f = collect_facts(
      "class Meta(type):\n"
      "    def __new__(mcs, name, bases, attrs):\n"
      "        new = super().__new__(mcs, name, bases, attrs)\n"
      "        if bases == (Base,):\n"
      "            return new\n"
      "        import a\n"
      "        if bases != (m.Base, Mixin):\n"
      "            import b\n"
      "        if bases == (Base):\n"  // not a tuple
      "            import c\n"
      "        return new\n"
      "    def __init__(cls, name, parents, attrs):\n"
      "        parents = tuple(parents)\n"  // rebound: not the class statement's bases
      "        if parents == (Base,):\n"
      "            import d\n"
      "def helper(a, b, bases, d):\n"  // not a metaclass method
      "    if bases == (Base,):\n"
      "        import e\n");
  EXPECT_EQ(function_imports(f), (std::vector<std::string>{
                                     "a !(bases==Base)",
                                     "b !(bases==Base)&&bases!=m.Base,Mixin",
                                     "c !(bases==Base) conditional",
                                     "d - conditional",
                                     "e - conditional",
                                 }));
  ASSERT_EQ(f.classes.size(), 1u);
  EXPECT_TRUE(f.classes[0].bases_complete);
  auto g = collect_facts("class A(B, Generic[T], metaclass=M):\n    pass\nclass C(*bases):\n    pass\n");
  ASSERT_EQ(g.classes.size(), 2u);
  EXPECT_FALSE(g.classes[0].bases_complete);
  EXPECT_FALSE(g.classes[1].bases_complete);
}

// What an extraction checks a moved definition against (cut_plan.cpp): every
// name the code could read from its module, never an attribute after a dot or
// a keyword argument's name.
TEST(TsIdentifiers, NamesTheCodeReadsButNotAttributesOrKeywords) {
  bool clean = false;
  const std::vector<std::string> ids = cyclefix::ts::identifiers(
      "@functools.wraps(fn)\n"
      "def f(x, *, key=DEFAULT):\n"
      "    obj.__name__ = helper(x, name=__name__)\n"
      "    return [LIMIT for _ in range(2)]\n",
      &clean);
  EXPECT_TRUE(clean);
  const std::vector<std::string> want = {"DEFAULT", "LIMIT", "_", "__name__", "f",   "fn",
                                         "functools", "helper", "key",    "obj", "range", "x"};
  EXPECT_EQ(ids, want);
  cyclefix::ts::identifiers("def f(:\n", &clean);
  EXPECT_FALSE(clean);
}

// The dotted names passed to a call, by position or keyword, tied to the
// call's event; positions after *args are unknown; a local of the calling
// function is dropped unless a local alias names its target or it is a
// parameter (kept as "$name"); indexes stay right after the Use events of
// names no import binds are dropped.
TEST(FactsCallArguments, PositionsKeywordsAndLocals) {
  auto f = collect_facts(
      "import os\n"
      "x = os.path\n"
      "register(Handler, mod.Cls, 3, key=Other)\n"
      "call(*args, After)\n"
      "def g():\n"
      "    import json\n"
      "def f(param):\n"
      "    local = Thing\n"
      "    y = json.attr\n"  // no module-level import binds json: its Use event is dropped
      "    use(param, local, Global)\n"
      "    other = 1\n"
      "    use(other)\n");
  ASSERT_EQ(f.call_arguments.size(), 6u);
  auto at = [&](std::size_t i) { return f.call_arguments[i]; };
  // Module body first.
  EXPECT_EQ(at(0).function, -1);
  EXPECT_EQ(f.events[at(0).event].name, "register");
  EXPECT_EQ(at(0).position, 0);
  EXPECT_EQ(at(0).value, "Handler");
  EXPECT_EQ(at(1).position, 1);
  EXPECT_EQ(at(1).value, "mod.Cls");
  EXPECT_EQ(at(2).position, -1);
  EXPECT_EQ(at(2).keyword, "key");
  EXPECT_EQ(at(2).value, "Other");
  // `call(*args, After)`: After's position is not known, so it is not kept.
  ASSERT_EQ(f.functions.size(), 2u);
  const auto& events = f.functions[1].events;
  EXPECT_EQ(at(3).function, 1);
  ASSERT_LT(at(3).event, events.size());
  EXPECT_EQ(events[at(3).event].name, "use");
  EXPECT_EQ(at(3).position, 0);
  EXPECT_EQ(at(3).value, "$param");  // the caller's own parameter, handed on
  EXPECT_EQ(at(4).position, 1);
  EXPECT_EQ(at(4).value, "Thing");  // the local alias's target
  EXPECT_EQ(at(5).position, 2);
  EXPECT_EQ(at(5).value, "Global");
}

// A parameter kept on the instance (`self.attr = p`, `self.__dict__["attr"] = p`)
// is a StoredParameter of its method; `self` itself, a non-parameter, a store
// on another object, a computed key and a store outside a method are not.
TEST(FactsStoredParameters, SelfAttributesAndDictEntries) {
  auto f = collect_facts(
      "class Lazy:\n"
      "    def __init__(self, func, label, *, key=None):\n"
      "        self.__dict__['_setupfunc'] = func\n"
      "        self.label = label\n"
      "        self.me = self\n"
      "        self.key = key\n"  // keyword-only: passed by keyword, kept too
      "        other.func = func\n"
      "        self.__dict__[label] = func\n"
      "        local = 1\n"
      "        self.local = local\n"
      "def free(x, y):\n"
      "    x.y = y\n"
      "    return x\n");
  ASSERT_EQ(f.functions.size(), 2u);
  ASSERT_EQ(f.stored_parameters.size(), 4u);
  EXPECT_EQ(f.stored_parameters[0].function, 0);
  EXPECT_EQ(f.stored_parameters[0].attribute, "_setupfunc");
  EXPECT_EQ(f.stored_parameters[0].parameter, "func");
  EXPECT_EQ(f.stored_parameters[1].attribute, "label");
  EXPECT_EQ(f.stored_parameters[1].parameter, "label");
  EXPECT_EQ(f.stored_parameters[2].attribute, "key");
  // `free(x, y)`: x is its first parameter, so `x.y = y` is kept too (the
  // reach model only uses stores of methods).
  EXPECT_EQ(f.stored_parameters[3].function, 1);
  EXPECT_EQ(f.stored_parameters[3].attribute, "y");
}

// A parameter of an enclosing function passed on by a nested def is "$name"
// too (a closure handing it on), unless the nested def binds the name; a
// loop over a parameter makes the loop variable stand for it (`for dec in
// decorators: f(dec)` passes "$decorators", `dec()` calls `decorators`).
TEST(FactsCallArguments, ClosureParametersAndLoopsOverParameters) {
  auto f = collect_facts(
      "def method_decorator(decorator, name=''):\n"
      "    def _dec(obj):\n"
      "        return _multi(decorator, obj)\n"
      "    def _own(decorator):\n"
      "        return _multi(decorator)\n"
      "    def _shadow(obj):\n"
      "        decorator = obj\n"
      "        return _multi(decorator)\n"
      "    return _dec\n"
      "def _multi(decorators, method):\n"
      "    for dec in decorators:\n"
      "        _update(method, dec)\n"
      "        dec(method)\n");
  std::map<std::string, std::vector<std::string>> values;  // function -> values passed
  for (const auto& a : f.call_arguments) values[f.functions[a.function].qualified_name].push_back(a.value);
  EXPECT_EQ(values["method_decorator._dec"], (std::vector<std::string>{"$decorator", "$obj"}));
  EXPECT_EQ(values["method_decorator._own"], (std::vector<std::string>{"$decorator"}));
  // Its own local, an alias of its parameter obj: obj is what is handed on.
  EXPECT_EQ(values["method_decorator._shadow"], (std::vector<std::string>{"$obj"}));
  EXPECT_EQ(values["_multi"], (std::vector<std::string>{"$method", "$decorators", "$method"}));
  std::vector<std::string> calls;
  for (const auto& e : f.functions.back().events)
    if (e.kind == Event::Kind::Call) calls.push_back(e.name);
  EXPECT_EQ(calls, (std::vector<std::string>{"_update", "decorators"}));
}

// `Cls(...).m(...)` calls method m of what the call made ("Cls().m"), and a
// local assigned from `a or b` / `a if c else b` may hold either side.
TEST(FactsCallEvents, MethodOfACallsResultAndEitherSideOfOr) {
  auto f = collect_facts(
      "Deferred('x', find).get()\n"
      "super().m()\n"
      "def f(widget=None, flag=False):\n"
      "    widget = widget or self_widget\n"
      "    alt = First if flag else Second\n"
      "    widget()\n"
      "    alt()\n");
  std::vector<std::string> module_calls, calls;
  for (const auto& e : f.events)
    if (e.kind == Event::Kind::Call) module_calls.push_back(e.name);
  EXPECT_EQ(module_calls, (std::vector<std::string>{"Deferred", "Deferred().get", "super", "super.m"}));
  for (const auto& e : f.events)
    if (e.kind == Event::Kind::Call) EXPECT_EQ(e.on_result, e.name == "Deferred().get") << e.name;
  ASSERT_EQ(f.functions.size(), 1u);
  for (const auto& e : f.functions[0].events)
    if (e.kind == Event::Kind::Call) calls.push_back(e.name);
  EXPECT_EQ(calls, (std::vector<std::string>{"widget", "self_widget", "First", "Second"}));
}

// A method's `self.attr` reads are Use events, once per body: not the
// callee of `self.m()`, not the target of `self.x = v` (but `self.a` in
// `self.a.b = v` and in `self.a.b()` is read), not dunders, not at module level.
TEST(FactsUseEvents, SelfAttributeReads) {
  auto f = collect_facts(
      "self.top\n"
      "class Shape:\n"
      "    def __init__(self, name):\n"
      "        self.name = name\n"
      "        self.label = name + self.unit\n"
      "        self.unit\n"
      "        self.check()\n"
      "        self.parts.add(name)\n"
      "        self.style.color = 1\n"
      "        self.count += 1\n"
      "        self.__dict__\n");
  std::vector<std::string> module_uses, uses;
  for (const auto& e : f.events)
    if (e.kind == Event::Kind::Use) module_uses.push_back(e.name);
  EXPECT_TRUE(module_uses.empty());
  ASSERT_EQ(f.functions.size(), 1u);
  for (const auto& e : f.functions[0].events)
    if (e.kind == Event::Kind::Use) uses.push_back(e.name);
  EXPECT_EQ(uses, (std::vector<std::string>{"self.unit", "self.parts", "self.style", "self.count"}));
}

// Class attributes made from a callable are kept as "Cls.attr" aliases (not
// under an if); `return Cls(...)` is kept as "Cls()" among the returns.
TEST(FactsAliases, ClassAttributesAndReturnedInstances) {
  auto f = collect_facts(
      "class Lazy:\n"
      "    __getattr__ = proxy(getattr)\n"
      "    plain = helper\n"
      "    if FLAG:\n"
      "        maybe = other\n"
      "def make():\n"
      "    return Lazy()\n");
  std::vector<std::pair<std::string, std::string>> got;
  for (const Alias& a : f.aliases) got.emplace_back(a.name, a.target);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{{"Lazy.__getattr__", "proxy()"},
                                                                    {"Lazy.plain", "helper"}}));
  ASSERT_EQ(f.functions.size(), 1u);
  EXPECT_EQ(f.functions[0].returns, std::vector<std::string>{"Lazy()"});
}

// Operators, builtins and statements run protocol methods of their operands:
// one Protocol event per name and body, the operand named when the module
// scope (or `self`) binds it, "?" otherwise; nothing for builtin values or in
// annotations. A name stands for its companions (`__iter__` for `__next__`).
TEST(FactsProtocol, OperatorsBuiltinsAndStatements) {
  auto f = collect_facts(
      "import copy\n"
      "from m import ONE\n"
      "TWO = ONE + 1\n"
      "THREE = copy.deepcopy(ONE)\n"
      "x: List[int] = [1] + [2]\n"
      "class C:\n"
      "    def __eq__(self, other):\n"
      "        return self < other\n"
      "    def f(self, items, d, k):\n"
      "        for v in items:\n"
      "            if not v:\n"
      "                d[k] = -v\n"
      "        n = len(items) + len(d)\n"
      "        with open_it() as h:\n"
      "            pass\n"
      "        assert k is not None\n"
      "        return k in d\n");
  auto names = [](const std::vector<cyclefix::Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events)
      if (e.kind == cyclefix::Event::Kind::Protocol) out.push_back(e.name);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(f.events), V({"ONE.__add__", "ONE.__deepcopy__"}));
  ASSERT_EQ(f.functions.size(), 2u);
  EXPECT_EQ(names(f.functions[0].events), V({"self.__lt__", "?.__gt__"}));
  EXPECT_EQ(names(f.functions[1].events),
            V({"?.__iter__", "?.__bool__", "?.__setitem__", "?.__hash__", "?.__neg__", "?.__add__", "?.__radd__",
               "?.__len__", "?.__enter__", "?.__contains__"}));
}

// Module code naming thousands of distinct operands (generated tables): one
// Protocol event each, found without a quadratic scan (this took 4 s).
TEST(FactsProtocol, ManyDistinctOperands) {
  std::string src = "from m import A0\n";
  for (int i = 1; i < 20000; ++i) src += "A" + std::to_string(i) + " = A" + std::to_string(i - 1) + " + 1\n";
  auto f = collect_facts(src);
  std::size_t protocol = 0;
  for (const auto& e : f.events) protocol += e.kind == cyclefix::Event::Kind::Protocol;
  EXPECT_EQ(protocol, 19999u);
}
