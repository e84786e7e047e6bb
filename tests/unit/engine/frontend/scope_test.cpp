// Scope analysis: locals, cells and free variables of closures, globals, class scopes, comprehensions.
#include <gtest/gtest.h>

#include "frontend_test_support.h"

using namespace eng::frontend;

namespace {

std::string scopes(const std::string& source) {
    SourceFile file("t.py", source);
    auto module = parseModule(file);
    if (!module) return "parse error: " + module.error().render();
    auto table = analyzeScopes(*module, file);
    if (!table) return "error: " + table.error().render();
    return describeScopes(*table);
}

}  // namespace

TEST(Scopes, FunctionLocalsAndGlobals) {
    EXPECT_EQ(scopes("import torch\ndef f(x, y=1):\n    z = torch.sin(x)\n    return z + y + w\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function f: locals=[x y z] cells=[] free=[] globals=[torch w]\n");
}

TEST(Scopes, ParametersComeFirstInPythonOrder) {
    EXPECT_EQ(scopes("def f(a, /, b, *args, c, d=1, **kw):\n    e = 1\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function f: locals=[a b c d args kw e] cells=[] free=[] globals=[]\n");
}

TEST(Scopes, ClosuresMakeCellsAndFreeVariables) {
    EXPECT_EQ(scopes("def outer(a):\n    b = 2\n    c = 3\n    def inner():\n        return a + b\n    return inner\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function outer: locals=[a c inner] cells=[a b] free=[] globals=[]\n"
              "    function outer.<locals>.inner: locals=[] cells=[] free=[a b] globals=[]\n");
}

TEST(Scopes, NonlocalBindsTheEnclosingVariable) {
    EXPECT_EQ(scopes("def counter():\n    n = 0\n    def bump():\n        nonlocal n\n        n += 1\n        return "
                     "n\n    return bump\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function counter: locals=[bump] cells=[n] free=[] globals=[]\n"
              "    function counter.<locals>.bump: locals=[] cells=[] free=[n] globals=[]\n");
}

TEST(Scopes, FreeVariablesPassThroughIntermediateFunctions) {
    EXPECT_EQ(scopes("def a():\n    x = 1\n    def b():\n        def c():\n            return x\n        return c\n    "
                     "return b\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function a: locals=[b] cells=[x] free=[] globals=[]\n"
              "    function a.<locals>.b: locals=[c] cells=[] free=[x] globals=[]\n"
              "      function a.<locals>.b.<locals>.c: locals=[] cells=[] free=[x] globals=[]\n");
}

TEST(Scopes, GlobalDeclarationHidesEnclosingBindings) {
    EXPECT_EQ(scopes("def a():\n    x = 1\n    def b():\n        global x\n        x = 2\n        def c():\n           "
                     " return x\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function a: locals=[x b] cells=[] free=[] globals=[]\n"
              "    function a.<locals>.b: locals=[c] cells=[] free=[] globals=[x]\n"
              "      function a.<locals>.b.<locals>.c: locals=[] cells=[] free=[] globals=[x]\n");
}

TEST(Scopes, SuperGivesTheClassACellAndTheMethodAFreeVariable) {
    EXPECT_EQ(scopes("class MLP(nn.Module):\n    size = 3\n    def __init__(self):\n        super().__init__()\n"
                     "    def forward(self, x):\n        return size\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[nn]\n"
              "  class MLP: locals=[] cells=[__class__] free=[] globals=[]\n"
              "    function MLP.__init__: locals=[self] cells=[] free=[__class__] globals=[super]\n"
              "    function MLP.forward: locals=[self x] cells=[] free=[] globals=[size]\n");
}

TEST(Scopes, ClassBodiesSeeEnclosingFunctionsButMethodsDoNotSeeTheClass) {
    EXPECT_EQ(scopes("def make(n):\n    class C:\n        k = n\n        def m(self):\n            return n + k\n    "
                     "return C\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function make: locals=[n C] cells=[n] free=[] globals=[]\n"
              "    class make.<locals>.C: locals=[] cells=[] free=[n] globals=[]\n"
              "      function make.<locals>.C.m: locals=[self] cells=[] free=[n] globals=[k]\n");
}

TEST(Scopes, ComprehensionsHaveTheirOwnScope) {
    EXPECT_EQ(scopes("def f(xs, k):\n    return [x * k for x in xs if x], {a: b for a, b in xs}\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function f: locals=[xs k] cells=[k] free=[] globals=[]\n"
              "    comprehension f.<locals>.<listcomp>: locals=[.0 x] cells=[] free=[k] globals=[]\n"
              "    comprehension f.<locals>.<dictcomp>: locals=[.0 a b] cells=[] free=[] globals=[]\n");
    // The first iterable is evaluated outside; a class body's names are not visible inside.
    EXPECT_EQ(
        scopes("class C:\n    vals = [1]\n    doubled = [v * 2 for v in vals]\n    other = [vals for _ in range(2)]\n"),
        "module <module>: locals=[] cells=[] free=[] globals=[]\n"
        "  class C: locals=[] cells=[] free=[] globals=[range]\n"
        "    comprehension C.<listcomp>: locals=[.0 v] cells=[] free=[] globals=[]\n"
        "    comprehension C.<listcomp>: locals=[.0 _] cells=[] free=[] globals=[vals]\n");
}

TEST(Scopes, LambdasCaptureLikeFunctions) {
    EXPECT_EQ(scopes("def f(s):\n    g = lambda x, y=s: x * s\n    return g\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function f: locals=[s g] cells=[s] free=[] globals=[]\n"
              "    lambda f.<locals>.<lambda>: locals=[x y] cells=[] free=[s] globals=[]\n");
}

TEST(Scopes, BindingFormsMakeLocals) {
    EXPECT_EQ(scopes("def f():\n    import torch.nn as nn\n    import os.path\n    from m import a as b\n    for i, "
                     "(j, *k) in z:\n"
                     "        pass\n    with w as (p, q):\n        pass\n    try:\n        pass\n    except E as e:\n  "
                     "      pass\n"
                     "    del d\n    t: int\n    u += 1\n    class K:\n        pass\n"),
              "module <module>: locals=[] cells=[] free=[] globals=[]\n"
              "  function f: locals=[nn os b i j k p q e d t u K] cells=[] free=[] globals=[E w z]\n"
              "    class f.<locals>.K: locals=[] cells=[] free=[] globals=[]\n");
}

TEST(Scopes, CellParametersMapToTheirArgumentSlot) {
    auto code = frontendtest::compileOrFail("def f(a, b):\n    def g():\n        return b\n    return g\n");
    auto f = frontendtest::findCode(code, "f");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cellVars, std::vector<std::string>{"b"});
    EXPECT_EQ(f->cellParameters, std::vector<int>{1});
    EXPECT_EQ(f->varNames, (std::vector<std::string>{"a", "b", "g"}));
}
