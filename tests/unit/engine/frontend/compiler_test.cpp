// Bytecode for expressions, calls, names, imports, functions, closures, classes and comprehensions: the
// expected instruction sequences, CPython 3.11/3.12 style.
#include <gtest/gtest.h>

#include "frontend_test_support.h"

using frontendtest::listingOf;
using namespace eng::frontend;

TEST(Compiler, ArithmeticAndReturn) {
    EXPECT_EQ(listingOf("def f(x):\n    return x + 1\n", "f"),
              "LOAD_FAST x\nLOAD_CONST 1\nBINARY_OP +\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(a, b):\n    return -a ** 2 @ b // 3 % ~b\n", "f"),
              "LOAD_FAST a\nLOAD_CONST 2\nBINARY_OP **\nUNARY_NEGATIVE\nLOAD_FAST b\nBINARY_OP @\nLOAD_CONST "
              "3\nBINARY_OP //\n"
              "LOAD_FAST b\nUNARY_INVERT\nBINARY_OP %\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(x):\n    return x[-1], -2.5, not x, +x\n", "f"),
              "LOAD_FAST x\nLOAD_CONST -1\nBINARY_SUBSCR\nLOAD_CONST -2.5\nLOAD_FAST x\nUNARY_NOT\nLOAD_FAST "
              "x\nUNARY_POSITIVE\n"
              "BUILD_TUPLE 4\nRETURN_VALUE\n");
}

TEST(Compiler, ModuleNamesUseTheNamespace) {
    EXPECT_EQ(listingOf("x = 1\ny = x * 2\ndel x\n", "<module>"),
              "LOAD_CONST 1\nSTORE_NAME x\nLOAD_NAME x\nLOAD_CONST 2\nBINARY_OP *\nSTORE_NAME y\nDELETE_NAME "
              "x\nRETURN_CONST None\n");
}

TEST(Compiler, Imports) {
    EXPECT_EQ(
        listingOf("import torch\nimport torch.nn.functional as F\nimport os.path\nfrom torch import nn as n2, Tensor\n",
                  "<module>"),
        "LOAD_CONST None\nIMPORT_NAME torch\nSTORE_NAME torch\n"
        "LOAD_CONST None\nIMPORT_NAME torch.nn.functional\nLOAD_ATTR nn\nLOAD_ATTR functional\nSTORE_NAME F\n"
        "LOAD_CONST None\nIMPORT_NAME os.path\nSTORE_NAME os\n"
        "LOAD_CONST ('nn', 'Tensor')\nIMPORT_NAME torch\nIMPORT_FROM nn\nSTORE_NAME n2\nIMPORT_FROM Tensor\nSTORE_NAME "
        "Tensor\nPOP_TOP\n"
        "RETURN_CONST None\n");
}

TEST(Compiler, CallsPassCallableSelfOrNullAndArguments) {
    EXPECT_EQ(listingOf("def f(x):\n    return torch.sum(x, dim=1, keepdim=True)\n", "f"),
              "LOAD_GLOBAL torch\nLOAD_METHOD sum\nLOAD_FAST x\nLOAD_CONST 1\nLOAD_CONST True\nLOAD_CONST ('dim', "
              "'keepdim')\n"
              "CALL_KW 3\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(g, x):\n    return g(x)\n", "f"),
              "LOAD_FAST g\nPUSH_NULL\nLOAD_FAST x\nCALL 1\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(g, a, k):\n    return g(1, *a, 2, x=3, **k)\n", "f"),
              "LOAD_FAST g\nPUSH_NULL\nLOAD_CONST 1\nBUILD_LIST 1\nLOAD_FAST a\nLIST_EXTEND 1\nLOAD_CONST "
              "2\nLIST_APPEND 1\nLIST_TO_TUPLE\n"
              "LOAD_CONST 'x'\nLOAD_CONST 3\nBUILD_MAP 1\nLOAD_FAST k\nDICT_MERGE 1\nCALL_FUNCTION_EX with "
              "kwargs\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(o, a):\n    return o.m(*a)\n", "f"),
              "LOAD_FAST o\nLOAD_METHOD m\nBUILD_LIST 0\nLOAD_FAST a\nLIST_EXTEND 1\nLIST_TO_TUPLE\nCALL_FUNCTION_EX "
              "0\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(self):\n    super().__init__()\n", "f"),
              "LOAD_GLOBAL super\nPUSH_NULL\nCALL 0\nLOAD_METHOD __init__\nCALL 0\nPOP_TOP\nRETURN_CONST None\n");
}

TEST(Compiler, AttributesSubscriptsAndSlices) {
    EXPECT_EQ(listingOf("def f(x):\n    return x[:, None, 1:3]\n", "f"),
              "LOAD_FAST x\nLOAD_CONST None\nLOAD_CONST None\nBUILD_SLICE 2\nLOAD_CONST None\nLOAD_CONST 1\nLOAD_CONST "
              "3\nBUILD_SLICE 2\n"
              "BUILD_TUPLE 3\nBINARY_SUBSCR\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(x, i):\n    x.a.b = x[i::2]\n", "f"),
              "LOAD_FAST x\nLOAD_FAST i\nLOAD_CONST None\nLOAD_CONST 2\nBUILD_SLICE 3\nBINARY_SUBSCR\nLOAD_FAST "
              "x\nLOAD_ATTR a\n"
              "STORE_ATTR b\nRETURN_CONST None\n");
}

TEST(Compiler, AssignmentForms) {
    EXPECT_EQ(listingOf("def f(x):\n    a = b = x\n    c, *d, e = x\n    [g, (h, i)] = x\n", "f"),
              "LOAD_FAST x\nCOPY 1\nSTORE_FAST a\nSTORE_FAST b\n"
              "LOAD_FAST x\nUNPACK_EX 1 before, 1 after\nSTORE_FAST c\nSTORE_FAST d\nSTORE_FAST e\n"
              "LOAD_FAST x\nUNPACK_SEQUENCE 2\nSTORE_FAST g\nUNPACK_SEQUENCE 2\nSTORE_FAST h\nSTORE_FAST "
              "i\nRETURN_CONST None\n");
    EXPECT_EQ(listingOf("def f(p, d, k):\n    p.grad -= 1\n    d[k] += 2\n    k **= 3\n", "f"),
              "LOAD_FAST p\nCOPY 1\nLOAD_ATTR grad\nLOAD_CONST 1\nBINARY_OP -=\nSWAP 2\nSTORE_ATTR grad\n"
              "LOAD_FAST d\nLOAD_FAST k\nCOPY 2\nCOPY 2\nBINARY_SUBSCR\nLOAD_CONST 2\nBINARY_OP +=\nSWAP 3\nSWAP "
              "2\nSTORE_SUBSCR\n"
              "LOAD_FAST k\nLOAD_CONST 3\nBINARY_OP **=\nSTORE_FAST k\nRETURN_CONST None\n");
    EXPECT_EQ(listingOf("def f(d, o):\n    del d[0], o.x\n    y: int = 1\n", "f"),
              "LOAD_FAST d\nLOAD_CONST 0\nDELETE_SUBSCR\nLOAD_FAST o\nDELETE_ATTR x\nLOAD_CONST 1\nSTORE_FAST "
              "y\nRETURN_CONST None\n");
}

TEST(Compiler, BooleanOperatorsShortCircuit) {
    EXPECT_EQ(listingOf("def f(a, b, c):\n    return a and b or c\n", "f"),
              "LOAD_FAST a\nCOPY 1\nPOP_JUMP_IF_FALSE to 5\nPOP_TOP\nLOAD_FAST b\nCOPY 1\nPOP_JUMP_IF_TRUE to "
              "9\nPOP_TOP\nLOAD_FAST c\n"
              "RETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(a, b, c):\n    return b if a else c\n", "f"),
              "LOAD_FAST a\nPOP_JUMP_IF_FALSE to 4\nLOAD_FAST b\nJUMP_FORWARD to 5\nLOAD_FAST c\nRETURN_VALUE\n");
}

TEST(Compiler, Comparisons) {
    EXPECT_EQ(
        listingOf("def f(a, b):\n    return a < b, a in b, a not in b, a is b, a is not b\n", "f"),
        "LOAD_FAST a\nLOAD_FAST b\nCOMPARE_OP <\nLOAD_FAST a\nLOAD_FAST b\nCONTAINS_OP in\nLOAD_FAST a\nLOAD_FAST b\n"
        "CONTAINS_OP not in\nLOAD_FAST a\nLOAD_FAST b\nIS_OP is\nLOAD_FAST a\nLOAD_FAST b\nIS_OP is not\nBUILD_TUPLE "
        "5\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(a, b, c):\n    return a < b <= c\n", "f"),
              "LOAD_FAST a\nLOAD_FAST b\nSWAP 2\nCOPY 2\nCOMPARE_OP <\nCOPY 1\nPOP_JUMP_IF_FALSE to "
              "11\nPOP_TOP\nLOAD_FAST c\n"
              "COMPARE_OP <=\nJUMP_FORWARD to 13\nSWAP 2\nPOP_TOP\nRETURN_VALUE\n");
}

TEST(Compiler, Displays) {
    EXPECT_EQ(listingOf("def f(a, d):\n    return [1, *a], {*a, 2}, {'k': 1, **d}, (*a,)\n", "f"),
              "LOAD_CONST 1\nBUILD_LIST 1\nLOAD_FAST a\nLIST_EXTEND 1\n"
              "BUILD_SET 0\nLOAD_FAST a\nSET_UPDATE 1\nLOAD_CONST 2\nSET_ADD 1\n"
              "LOAD_CONST 'k'\nLOAD_CONST 1\nBUILD_MAP 1\nLOAD_FAST d\nDICT_UPDATE 1\n"
              "BUILD_LIST 0\nLOAD_FAST a\nLIST_EXTEND 1\nLIST_TO_TUPLE\nBUILD_TUPLE 4\nRETURN_VALUE\n");
}

TEST(Compiler, FStrings) {
    EXPECT_EQ(
        listingOf("def f(x):\n    return f'{x!r:>4} ok {x}'\n", "f"),
        "LOAD_FAST x\nLOAD_CONST '>4'\nFORMAT_VALUE repr, with format\nLOAD_CONST ' ok '\nLOAD_FAST x\nFORMAT_VALUE 0\n"
        "BUILD_STRING 3\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf("def f(x):\n    return f'{x}'\n", "f"), "LOAD_FAST x\nFORMAT_VALUE 0\nRETURN_VALUE\n");
}

TEST(Compiler, DecoratorsDefaultsAndKeywordOnlyDefaults) {
    EXPECT_EQ(listingOf("@torch.compile(fullgraph=True)\n@dec\ndef f(a, b=1, *, c=2, d):\n    pass\n", "<module>"),
              "LOAD_NAME torch\nLOAD_METHOD compile\nLOAD_CONST True\nLOAD_CONST ('fullgraph',)\nCALL_KW 1\nPUSH_NULL\n"
              "LOAD_NAME dec\nPUSH_NULL\n"
              "LOAD_CONST 1\nBUILD_TUPLE 1\nLOAD_CONST 'c'\nLOAD_CONST 2\nBUILD_MAP 1\n"
              "LOAD_CONST <code object f, file \"t.py\", line 1>\nMAKE_FUNCTION defaults, kwdefaults\nCALL 1\nCALL "
              "1\nSTORE_NAME f\n"
              "RETURN_CONST None\n");
}

TEST(Compiler, ClosuresLoadCellsAndDerefs) {
    const char* source =
        "def outer(a):\n    n = 0\n    def inner(x):\n        nonlocal n\n        n += x\n        return n + a\n    "
        "return inner\n";
    EXPECT_EQ(listingOf(source, "outer"),
              "LOAD_CONST 0\nSTORE_DEREF n\nLOAD_CLOSURE a\nLOAD_CLOSURE n\nBUILD_TUPLE 2\n"
              "LOAD_CONST <code object inner, file \"t.py\", line 3>\nMAKE_FUNCTION closure\nSTORE_FAST "
              "inner\nLOAD_FAST inner\nRETURN_VALUE\n");
    EXPECT_EQ(listingOf(source, "inner"),
              "LOAD_DEREF n\nLOAD_FAST x\nBINARY_OP +=\nSTORE_DEREF n\nLOAD_DEREF n\nLOAD_DEREF a\nBINARY_OP "
              "+\nRETURN_VALUE\n");
    auto code = frontendtest::findCode(frontendtest::compileOrFail(source), "inner");
    ASSERT_TRUE(code);
    EXPECT_EQ(code->freeVars, (std::vector<std::string>{"a", "n"}));
}

TEST(Compiler, GlobalsInFunctions) {
    EXPECT_EQ(listingOf("counter = 0\ndef bump():\n    global counter\n    counter += 1\n    return len\n", "bump"),
              "LOAD_GLOBAL counter\nLOAD_CONST 1\nBINARY_OP +=\nSTORE_GLOBAL counter\nLOAD_GLOBAL len\nRETURN_VALUE\n");
}

TEST(Compiler, ClassesBuildThroughBuildClassWithTheClassCell) {
    const char* source = "class A(B):\n    '''doc'''\n    k = 1\n    def __init__(self):\n        super().__init__()\n";
    EXPECT_EQ(listingOf(source, "<module>"),
              "LOAD_BUILD_CLASS\nPUSH_NULL\nLOAD_CONST <code object A, file \"t.py\", line 1>\nMAKE_FUNCTION "
              "0\nLOAD_CONST 'A'\n"
              "LOAD_NAME B\nCALL 3\nSTORE_NAME A\nRETURN_CONST None\n");
    EXPECT_EQ(listingOf(source, "A"),
              "LOAD_NAME __name__\nSTORE_NAME __module__\nLOAD_CONST 'A'\nSTORE_NAME __qualname__\nLOAD_CONST "
              "'doc'\nSTORE_NAME __doc__\n"
              "LOAD_CONST 1\nSTORE_NAME k\nLOAD_CLOSURE __class__\nBUILD_TUPLE 1\n"
              "LOAD_CONST <code object __init__, file \"t.py\", line 4>\nMAKE_FUNCTION closure\nSTORE_NAME __init__\n"
              "LOAD_CLOSURE __class__\nCOPY 1\nSTORE_NAME __classcell__\nRETURN_VALUE\n");
    EXPECT_EQ(
        listingOf("class C:\n    pass\n", "C"),
        "LOAD_NAME __name__\nSTORE_NAME __module__\nLOAD_CONST 'C'\nSTORE_NAME __qualname__\nRETURN_CONST None\n");
}

TEST(Compiler, ClassBodiesReadEnclosingFunctionCellsWithClassDeref) {
    EXPECT_EQ(listingOf("def make(n):\n    class C:\n        k = n\n    return C\n", "C"),
              "LOAD_NAME __name__\nSTORE_NAME __module__\nLOAD_CONST 'make.<locals>.C'\nSTORE_NAME __qualname__\n"
              "LOAD_CLASSDEREF n\nSTORE_NAME k\nRETURN_CONST None\n");
}

TEST(Compiler, ComprehensionsAreNestedFunctions) {
    const char* source = "def f(xs, k):\n    return [x * k for x in xs if x], sum(y for y in xs)\n";
    EXPECT_EQ(listingOf(source, "f"),
              "LOAD_CLOSURE k\nBUILD_TUPLE 1\nLOAD_CONST <code object <listcomp>, file \"t.py\", line "
              "2>\nMAKE_FUNCTION closure\n"
              "PUSH_NULL\nLOAD_FAST xs\nGET_ITER\nCALL 1\n"
              "LOAD_GLOBAL sum\nPUSH_NULL\nLOAD_CONST <code object <genexpr>, file \"t.py\", line 2>\nMAKE_FUNCTION 0\n"
              "PUSH_NULL\nLOAD_FAST xs\nGET_ITER\nCALL 1\nCALL 1\nBUILD_TUPLE 2\nRETURN_VALUE\n");
    EXPECT_EQ(
        listingOf(source, "<listcomp>"),
        "BUILD_LIST 0\nLOAD_FAST .0\nFOR_ITER to 11\nSTORE_FAST x\nLOAD_FAST x\nPOP_JUMP_IF_FALSE to 2\nLOAD_FAST x\n"
        "LOAD_DEREF k\nBINARY_OP *\nLIST_APPEND 2\nJUMP_BACKWARD to 2\nRETURN_VALUE\n");
    // A generator expression is a generator: it yields each element.
    EXPECT_EQ(listingOf(source, "<genexpr>"),
              "LOAD_FAST .0\nFOR_ITER to 7\nSTORE_FAST y\nLOAD_FAST y\nYIELD_VALUE\nPOP_TOP\nJUMP_BACKWARD to 1\n"
              "RETURN_CONST None\n");
    EXPECT_EQ(
        listingOf("d = {k: v for k, v in items for _ in k}\n", "<dictcomp>"),
        "BUILD_MAP 0\nLOAD_FAST .0\nFOR_ITER to 15\nUNPACK_SEQUENCE 2\nSTORE_FAST k\nSTORE_FAST v\nLOAD_FAST "
        "k\nGET_ITER\n"
        "FOR_ITER to 14\nSTORE_FAST _\nLOAD_FAST k\nLOAD_FAST v\nMAP_ADD 3\nJUMP_BACKWARD to 8\nJUMP_BACKWARD to 2\n"
        "RETURN_VALUE\n");
}

TEST(Compiler, LambdasWithDefaults) {
    EXPECT_EQ(listingOf("f = lambda x, y=2: x * y\n", "<module>"),
              "LOAD_CONST 2\nBUILD_TUPLE 1\nLOAD_CONST <code object <lambda>, file \"t.py\", line 1>\nMAKE_FUNCTION "
              "defaults\n"
              "STORE_NAME f\nRETURN_CONST None\n");
    EXPECT_EQ(listingOf("f = lambda x, y=2: x * y\n", "<lambda>"),
              "LOAD_FAST x\nLOAD_FAST y\nBINARY_OP *\nRETURN_VALUE\n");
}

TEST(Compiler, CodeObjectMetadata) {
    auto module = frontendtest::compileOrFail("def f(a, b=1, /, c=2, *args, d, **kw):\n    '''Doc.'''\n    return a\n");
    auto f = frontendtest::findCode(module, "f");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->kind, CodeKind::Function);
    EXPECT_EQ(f->qualifiedName, "f");
    EXPECT_EQ(f->filename, "t.py");
    EXPECT_EQ(f->firstLine, 1);
    EXPECT_EQ(f->argCount, 3);
    EXPECT_EQ(f->positionalOnlyArgCount, 2);
    EXPECT_EQ(f->keywordOnlyArgCount, 1);
    EXPECT_TRUE(f->hasVarArgs);
    EXPECT_TRUE(f->hasVarKeywords);
    EXPECT_EQ(f->parameterCount(), 6);
    EXPECT_EQ(f->varNames, (std::vector<std::string>{"a", "b", "c", "d", "args", "kw"}));
    EXPECT_EQ(f->docstring, std::optional<std::string>("Doc."));
    EXPECT_EQ(f->maxStackDepth, 1);
    EXPECT_EQ(module->kind, CodeKind::Module);
    EXPECT_EQ(module->nestedCode().size(), 1u);
}

TEST(Compiler, ConstantsAreSharedButKeepTheirType) {
    auto code = frontendtest::findCode(
        frontendtest::compileOrFail("def f():\n    return (1, 1, 1.0, True, 'a', 'a', -0.0, 0.0)\n"), "f");
    ASSERT_TRUE(code);
    std::vector<std::string> reprs;
    for (const Constant& constant : code->constants) reprs.push_back(constantRepr(constant));
    EXPECT_EQ(reprs, (std::vector<std::string>{"1", "1.0", "True", "'a'", "-0.0", "0.0"}));
}
