// Bytecode for branches, loops, return/break/continue unwinding, try/except/finally and with, including the
// exception tables (protected range -> handler, stack depth kept).
#include <gtest/gtest.h>

#include "frontend_test_support.h"

using frontendtest::listingOf;
using namespace eng::frontend;

namespace {

std::vector<ExceptionTableEntry> tableOf(const std::string& source, const std::string& name) {
    auto code = frontendtest::findCode(frontendtest::compileOrFail(source), name);
    return code ? code->exceptionTable : std::vector<ExceptionTableEntry>{};
}

}  // namespace

TEST(CompilerControl, IfElse) {
    EXPECT_EQ(listingOf("def f(x):\n    if x > 0:\n        y = 1\n    else:\n        y = 2\n    return y\n", "f"),
              "LOAD_FAST x\nLOAD_CONST 0\nCOMPARE_OP >\nPOP_JUMP_IF_FALSE to 7\nLOAD_CONST 1\nSTORE_FAST "
              "y\nJUMP_FORWARD to 9\n"
              "LOAD_CONST 2\nSTORE_FAST y\nLOAD_FAST y\nRETURN_VALUE\n");
}

TEST(CompilerControl, ConditionsJumpWithoutMaterializingBooleans) {
    EXPECT_EQ(
        listingOf("def f(a, b):\n    if a is None or not b:\n        return 1\n    return 2\n", "f"),
        "LOAD_FAST a\nPOP_JUMP_IF_NONE to 4\nLOAD_FAST b\nPOP_JUMP_IF_TRUE to 5\nRETURN_CONST 1\nRETURN_CONST 2\n");
    EXPECT_EQ(
        listingOf("def f(a, b):\n    if a and b is not None:\n        return 1\n", "f"),
        "LOAD_FAST a\nPOP_JUMP_IF_FALSE to 5\nLOAD_FAST b\nPOP_JUMP_IF_NONE to 5\nRETURN_CONST 1\nRETURN_CONST None\n");
}

TEST(CompilerControl, ForWithBreakContinueAndElse) {
    EXPECT_EQ(
        listingOf("def f(xs):\n    for x in xs:\n        if x:\n            continue\n        break\n    else:\n       "
                  " return 0\n"
                  "    return 1\n",
                  "f"),
        "LOAD_FAST xs\nGET_ITER\nFOR_ITER to 9\nSTORE_FAST x\nLOAD_FAST x\nPOP_JUMP_IF_FALSE to 7\nJUMP_BACKWARD to 2\n"
        "POP_TOP\nJUMP_FORWARD to 10\nRETURN_CONST 0\nRETURN_CONST 1\n");
}

TEST(CompilerControl, ReturnInsideForPopsTheIterator) {
    EXPECT_EQ(listingOf("def f(xs):\n    for x in xs:\n        return x\n", "f"),
              "LOAD_FAST xs\nGET_ITER\nFOR_ITER to 8\nSTORE_FAST x\nLOAD_FAST x\nSWAP "
              "2\nPOP_TOP\nRETURN_VALUE\nRETURN_CONST None\n");
}

TEST(CompilerControl, WhileLoops) {
    EXPECT_EQ(listingOf("def f(n):\n    while n:\n        n -= 1\n    else:\n        n = 5\n    return n\n", "f"),
              "LOAD_FAST n\nPOP_JUMP_IF_FALSE to 7\nLOAD_FAST n\nLOAD_CONST 1\nBINARY_OP -=\nSTORE_FAST "
              "n\nJUMP_BACKWARD to 0\n"
              "LOAD_CONST 5\nSTORE_FAST n\nLOAD_FAST n\nRETURN_VALUE\n");
    EXPECT_EQ(
        listingOf("def f():\n    n = 0\n    while True:\n        n += 1\n        if n > 3:\n            break\n    "
                  "return n\n",
                  "f"),
        "LOAD_CONST 0\nSTORE_FAST n\nLOAD_FAST n\nLOAD_CONST 1\nBINARY_OP +=\nSTORE_FAST n\nLOAD_FAST n\nLOAD_CONST 3\n"
        "COMPARE_OP >\nPOP_JUMP_IF_FALSE to 11\nJUMP_FORWARD to 12\nJUMP_BACKWARD to 2\nLOAD_FAST n\nRETURN_VALUE\n");
    // Nothing follows an endless loop without break, not even the implicit return.
    EXPECT_EQ(listingOf("def f():\n    while True:\n        pass\n", "f"), "JUMP_BACKWARD to 0\n");
}

TEST(CompilerControl, RaiseForms) {
    EXPECT_EQ(
        listingOf("def f(c):\n    if c:\n        raise\n    if c:\n        raise E\n    raise E('m') from c\n", "f"),
        "LOAD_FAST c\nPOP_JUMP_IF_FALSE to 3\nRAISE_VARARGS re-raise\nLOAD_FAST c\nPOP_JUMP_IF_FALSE to 7\nLOAD_GLOBAL "
        "E\n"
        "RAISE_VARARGS exception\nLOAD_GLOBAL E\nPUSH_NULL\nLOAD_CONST 'm'\nCALL 1\nLOAD_FAST c\nRAISE_VARARGS "
        "exception from cause\n");
}

TEST(CompilerControl, Assert) {
    EXPECT_EQ(listingOf("def f(x):\n    assert x, 'm'\n", "f"),
              "LOAD_FAST x\nPOP_JUMP_IF_TRUE to 7\nLOAD_ASSERTION_ERROR\nPUSH_NULL\nLOAD_CONST 'm'\nCALL "
              "1\nRAISE_VARARGS exception\n"
              "RETURN_CONST None\n");
}

TEST(CompilerControl, TryExceptWithNamedHandlerAndReturn) {
    const char* source =
        "def f():\n    try:\n        g()\n    except ValueError as e:\n        return e\n    return 0\n";
    EXPECT_EQ(listingOf(source, "f"),
              "LOAD_GLOBAL g\nPUSH_NULL\nCALL 0\nPOP_TOP\nJUMP_FORWARD to 25\n"
              "PUSH_EXC_INFO\nLOAD_GLOBAL ValueError\nCHECK_EXC_MATCH\nPOP_JUMP_IF_FALSE to 21\nSTORE_FAST e\n"
              "LOAD_FAST e\nSWAP 2\nPOP_EXCEPT\nLOAD_CONST None\nSTORE_FAST e\nDELETE_FAST e\nRETURN_VALUE\n"
              "LOAD_CONST None\nSTORE_FAST e\nDELETE_FAST e\nRERAISE\n"
              "RERAISE\n"
              "SWAP 2\nPOP_EXCEPT\nRERAISE\n"
              "RETURN_CONST 0\n");
    EXPECT_EQ(tableOf(source, "f"),
              (std::vector<ExceptionTableEntry>{
                  {0, 4, 5, 0}, {6, 10, 22, 1}, {10, 11, 17, 1}, {11, 12, 22, 1}, {17, 22, 22, 1}}));
    EXPECT_EQ(frontendtest::findCode(frontendtest::compileOrFail(source), "f")->maxStackDepth, 3);
}

TEST(CompilerControl, ContinueInsideExceptLeavesTheHandler) {
    const char* source =
        "def f(xs):\n    for x in xs:\n        try:\n            g(x)\n        except E:\n            continue\n";
    EXPECT_EQ(listingOf(source, "f"),
              "LOAD_FAST xs\nGET_ITER\nFOR_ITER to 22\nSTORE_FAST x\n"
              "LOAD_GLOBAL g\nPUSH_NULL\nLOAD_FAST x\nCALL 1\nPOP_TOP\nJUMP_FORWARD to 21\n"
              "PUSH_EXC_INFO\nLOAD_GLOBAL E\nCHECK_EXC_MATCH\nPOP_JUMP_IF_FALSE to "
              "17\nPOP_TOP\nPOP_EXCEPT\nJUMP_BACKWARD to 2\n"
              "RERAISE\nSWAP 2\nPOP_EXCEPT\nRERAISE\n"
              "JUMP_BACKWARD to 2\nRETURN_CONST None\n");
    EXPECT_EQ(tableOf(source, "f"),
              (std::vector<ExceptionTableEntry>{{4, 9, 10, 1}, {11, 15, 18, 2}, {17, 18, 18, 2}}));
}

TEST(CompilerControl, TryFinallyRunsTheFinalBodyOnReturnAndOnException) {
    const char* source = "def f(g):\n    try:\n        return g()\n    finally:\n        g.close()\n";
    EXPECT_EQ(listingOf(source, "f"),
              "LOAD_FAST g\nPUSH_NULL\nCALL 0\n"
              "LOAD_FAST g\nLOAD_METHOD close\nCALL 0\nPOP_TOP\nRETURN_VALUE\n"
              "PUSH_EXC_INFO\nLOAD_FAST g\nLOAD_METHOD close\nCALL 0\nPOP_TOP\nRERAISE\n"
              "SWAP 2\nPOP_EXCEPT\nRERAISE\n");
    EXPECT_EQ(tableOf(source, "f"), (std::vector<ExceptionTableEntry>{{0, 3, 8, 0}, {9, 14, 14, 1}}));
    EXPECT_EQ(frontendtest::findCode(frontendtest::compileOrFail(source), "f")->maxStackDepth, 4);
}

TEST(CompilerControl, WithCallsExitOnBothPaths) {
    const char* source = "def f(m):\n    with torch.no_grad():\n        y = m()\n    return y\n";
    EXPECT_EQ(listingOf(source, "f"),
              "LOAD_GLOBAL torch\nLOAD_METHOD no_grad\nCALL 0\nBEFORE_WITH\nPOP_TOP\n"
              "LOAD_FAST m\nPUSH_NULL\nCALL 0\nSTORE_FAST y\n"
              "PUSH_NULL\nLOAD_CONST None\nLOAD_CONST None\nLOAD_CONST None\nCALL 3\nPOP_TOP\nJUMP_FORWARD to 27\n"
              "PUSH_EXC_INFO\nWITH_EXCEPT_START\nPOP_JUMP_IF_TRUE to 20\nRERAISE\n"
              "POP_TOP\nPOP_EXCEPT\nPOP_TOP\nJUMP_FORWARD to 27\n"
              "SWAP 2\nPOP_EXCEPT\nRERAISE\n"
              "LOAD_FAST y\nRETURN_VALUE\n");
    EXPECT_EQ(tableOf(source, "f"), (std::vector<ExceptionTableEntry>{{4, 9, 16, 1}, {17, 20, 24, 2}}));
}

TEST(CompilerControl, WithAsTargetAndSeveralItemsNest) {
    const char* source = "def f(a, b):\n    with a as x, b as y:\n        return x + y\n";
    // Returning from inside both: the value goes below each __exit__ before it is called. When the inner
    // manager swallows an exception, execution continues with the outer one's normal exit (offset 35).
    EXPECT_EQ(listingOf(source, "f"),
              "LOAD_FAST a\nBEFORE_WITH\nSTORE_FAST x\nLOAD_FAST b\nBEFORE_WITH\nSTORE_FAST y\n"
              "LOAD_FAST x\nLOAD_FAST y\nBINARY_OP +\n"
              "SWAP 2\nPUSH_NULL\nLOAD_CONST None\nLOAD_CONST None\nLOAD_CONST None\nCALL 3\nPOP_TOP\n"
              "SWAP 2\nPUSH_NULL\nLOAD_CONST None\nLOAD_CONST None\nLOAD_CONST None\nCALL 3\nPOP_TOP\nRETURN_VALUE\n"
              "PUSH_EXC_INFO\nWITH_EXCEPT_START\nPOP_JUMP_IF_TRUE to "
              "28\nRERAISE\nPOP_TOP\nPOP_EXCEPT\nPOP_TOP\nJUMP_FORWARD to 35\n"
              "SWAP 2\nPOP_EXCEPT\nRERAISE\n"
              "PUSH_NULL\nLOAD_CONST None\nLOAD_CONST None\nLOAD_CONST None\nCALL 3\nPOP_TOP\nJUMP_FORWARD to 53\n"
              "PUSH_EXC_INFO\nWITH_EXCEPT_START\nPOP_JUMP_IF_TRUE to "
              "46\nRERAISE\nPOP_TOP\nPOP_EXCEPT\nPOP_TOP\nJUMP_FORWARD to 53\n"
              "SWAP 2\nPOP_EXCEPT\nRERAISE\nRETURN_CONST None\n");
    EXPECT_EQ(tableOf(source, "f"), (std::vector<ExceptionTableEntry>{{2, 5, 42, 1},
                                                                      {5, 9, 24, 2},
                                                                      {9, 16, 42, 1},
                                                                      {24, 25, 42, 1},
                                                                      {25, 28, 32, 3},
                                                                      {28, 35, 42, 1},
                                                                      {43, 46, 50, 2}}));
}

TEST(CompilerControl, BreakInsideWithInsideLoop) {
    EXPECT_EQ(
        listingOf("def f(xs, m):\n    for x in xs:\n        with m:\n            break\n", "f"),
        "LOAD_FAST xs\nGET_ITER\nFOR_ITER to 27\nSTORE_FAST x\nLOAD_FAST m\nBEFORE_WITH\nPOP_TOP\n"
        "PUSH_NULL\nLOAD_CONST None\nLOAD_CONST None\nLOAD_CONST None\nCALL 3\nPOP_TOP\nPOP_TOP\nJUMP_FORWARD to 27\n"
        "PUSH_EXC_INFO\nWITH_EXCEPT_START\nPOP_JUMP_IF_TRUE to 19\nRERAISE\nPOP_TOP\nPOP_EXCEPT\nPOP_TOP\nJUMP_FORWARD "
        "to 26\n"
        "SWAP 2\nPOP_EXCEPT\nRERAISE\nJUMP_BACKWARD to 2\nRETURN_CONST None\n");
}
