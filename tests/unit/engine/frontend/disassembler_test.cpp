// The disassembler's text: header, line numbers where they change, jump targets, decoded operands, the
// exception table, and nested code objects after their parent.
#include <gtest/gtest.h>

#include "frontend_test_support.h"

using namespace eng::frontend;

TEST(Disassembler, GoldenListing) {
    auto code = frontendtest::compileOrFail(
        "import torch\n\n@torch.compile\ndef f(x, n=2):\n    if x is None:\n        return 0\n"
        "    try:\n        y = x.sum(dim=1)\n    except Exception:\n        y = -1\n    return y * n\n");
    ASSERT_TRUE(code);
    EXPECT_EQ(disassemble(*code),
              "Disassembly of <code object <module>, file \"t.py\", line 1>:\n"
              "  module <module>: 0 argument(s) (0 positional-only, 0 keyword-only), flags: -\n"
              "  locals: -; cells: -; free: -; max stack: 4\n"
              "\n"
              "    1         0 LOAD_CONST                 0 (None)\n"
              "              1 IMPORT_NAME                0 (torch)\n"
              "              2 STORE_NAME                 0 (torch)\n"
              "\n"
              "    3         3 LOAD_NAME                  0 (torch)\n"
              "              4 LOAD_ATTR                  1 (compile)\n"
              "              5 PUSH_NULL\n"
              "\n"
              "    4         6 LOAD_CONST                 1 (2)\n"
              "              7 BUILD_TUPLE                1\n"
              "              8 LOAD_CONST                 2 (<code object f, file \"t.py\", line 3>)\n"
              "              9 MAKE_FUNCTION              1 (defaults)\n"
              "\n"
              "    3        10 CALL                       1\n"
              "\n"
              "    4        11 STORE_NAME                 2 (f)\n"
              "             12 RETURN_CONST               0 (None)\n"
              "\n"
              "Disassembly of <code object f, file \"t.py\", line 3>:\n"
              "  function f: 2 argument(s) (0 positional-only, 0 keyword-only), flags: -\n"
              "  locals: x, n, y; cells: -; free: -; max stack: 4\n"
              "\n"
              "    5         0 LOAD_FAST                  0 (x)\n"
              "              1 POP_JUMP_IF_NOT_NONE       3 (to 3)\n"
              "\n"
              "    6         2 RETURN_CONST               0 (0)\n"
              "\n"
              "    8  >>     3 LOAD_FAST                  0 (x)\n"
              "              4 LOAD_METHOD                0 (NULL|self + sum)\n"
              "              5 LOAD_CONST                 1 (1)\n"
              "              6 LOAD_CONST                 2 (('dim',))\n"
              "              7 CALL_KW                    1\n"
              "              8 STORE_FAST                 2 (y)\n"
              "\n"
              "    7         9 JUMP_FORWARD              23 (to 23)\n"
              "\n"
              "    9  >>    10 PUSH_EXC_INFO\n"
              "             11 LOAD_GLOBAL                1 (Exception)\n"
              "             12 CHECK_EXC_MATCH\n"
              "             13 POP_JUMP_IF_FALSE         19 (to 19)\n"
              "             14 POP_TOP\n"
              "\n"
              "   10        15 LOAD_CONST                 3 (-1)\n"
              "             16 STORE_FAST                 2 (y)\n"
              "\n"
              "    9        17 POP_EXCEPT\n"
              "             18 JUMP_FORWARD              23 (to 23)\n"
              "       >>    19 RERAISE\n"
              "       >>    20 SWAP                       2\n"
              "             21 POP_EXCEPT\n"
              "             22 RERAISE\n"
              "\n"
              "   11  >>    23 LOAD_FAST                  2 (y)\n"
              "             24 LOAD_FAST                  1 (n)\n"
              "             25 BINARY_OP                  5 (*)\n"
              "             26 RETURN_VALUE\n"
              "ExceptionTable:\n"
              "  3 to 8 -> 10 [0]\n"
              "  11 to 16 -> 20 [1]\n"
              "  19 to 19 -> 20 [1]\n");
}

TEST(Disassembler, PositionsShowFullRanges) {
    auto code = frontendtest::compileOrFail("y = f(x)\n");
    ASSERT_TRUE(code);
    DisassemblyOptions options;
    options.positions = true;
    EXPECT_EQ(disassemble(*code, options),
              "Disassembly of <code object <module>, file \"t.py\", line 1>:\n"
              "  module <module>: 0 argument(s) (0 positional-only, 0 keyword-only), flags: -\n"
              "  locals: -; cells: -; free: -; max stack: 3\n"
              "\n"
              "          1:5-1:6         0 LOAD_NAME                  0 (f)\n"
              "          1:5-1:9         1 PUSH_NULL\n"
              "          1:7-1:8         2 LOAD_NAME                  1 (x)\n"
              "          1:5-1:9         3 CALL                       1\n"
              "          1:1-1:2         4 STORE_NAME                 2 (y)\n"
              "          1:1-1:9         5 RETURN_CONST               0 (None)\n");
}

TEST(Disassembler, OperandMeanings) {
    auto code =
        frontendtest::compileOrFail("def f(a, *b, **c):\n    return f'{a!s:>3}', g(*b, **c), a is not b, a not in c\n");
    auto f = frontendtest::findCode(code, "f");
    ASSERT_TRUE(f);
    std::string text = disassemble(*f, DisassemblyOptions{false, false});
    EXPECT_NE(text.find("FORMAT_VALUE               5 (str, with format)"), std::string::npos) << text;
    EXPECT_NE(text.find("CALL_FUNCTION_EX           1 (with kwargs)"), std::string::npos) << text;
    EXPECT_NE(text.find("IS_OP                      1 (is not)"), std::string::npos) << text;
    EXPECT_NE(text.find("CONTAINS_OP                1 (not in)"), std::string::npos) << text;
    EXPECT_NE(text.find("flags: VARARGS VARKEYWORDS"), std::string::npos) << text;
}
