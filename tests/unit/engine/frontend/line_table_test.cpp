// The line table: every instruction maps back to the line and columns of the source it came from.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "frontend_test_support.h"

using namespace eng::frontend;

namespace {

/// "OPNAME line:col-line:col" per instruction of the named code object.
std::string locations(const std::string& source, const std::string& name) {
    auto code = frontendtest::findCode(frontendtest::compileOrFail(source), name);
    if (!code) return "missing " + name;
    std::string out;
    for (size_t i = 0; i < code->instructions.size(); ++i) {
        SourceRange r = code->lineTable.locationOf(static_cast<uint32_t>(i));
        out += fmt::format("{} {}:{}-{}:{}\n", opcodeName(code->instructions[i].opcode), r.begin.line, r.begin.column,
                           r.end.line, r.end.column);
    }
    return out;
}

}  // namespace

TEST(LineTable, InstructionsMapToLinesAndColumns) {
    EXPECT_EQ(locations("def f(x):\n    y = torch.sin(x)\n    return y * 2\n", "f"),
              "LOAD_GLOBAL 2:9-2:14\n"
              "LOAD_METHOD 2:9-2:18\n"
              "LOAD_FAST 2:19-2:20\n"
              "CALL 2:9-2:21\n"
              "STORE_FAST 2:5-2:6\n"
              "LOAD_FAST 3:12-3:13\n"
              "LOAD_CONST 3:16-3:17\n"
              "BINARY_OP 3:12-3:17\n"
              "RETURN_VALUE 3:5-3:17\n");
}

TEST(LineTable, MultiLineCallsKeepEachArgumentOnItsLine) {
    EXPECT_EQ(locations("def f(a, b):\n    return g(\n        a,\n        b=b,\n    )\n", "f"),
              "LOAD_GLOBAL 2:12-2:13\n"
              "PUSH_NULL 2:12-5:6\n"
              "LOAD_FAST 3:9-3:10\n"
              "LOAD_FAST 4:11-4:12\n"
              "LOAD_CONST 2:12-5:6\n"
              "CALL_KW 2:12-5:6\n"
              "RETURN_VALUE 2:5-5:6\n");
}

TEST(LineTable, GeneratedCodeTakesTheStatementsLocation) {
    auto code = frontendtest::findCode(
        frontendtest::compileOrFail(
            "def f(m):\n    with m:\n        pass\n    try:\n        g()\n    except E:\n        h()\n"),
        "f");
    ASSERT_TRUE(code);
    std::vector<int> lines;
    for (size_t i = 0; i < code->instructions.size(); ++i)
        lines.push_back(code->lineTable.lineOf(static_cast<uint32_t>(i)));
    // with: enter and both exit paths on line 2; try body on 5 and the jump over the handlers on 4; except
    // dispatch and handler exits on 6, its body on 7; the implicit return at the last statement (4).
    EXPECT_EQ(lines, (std::vector<int>{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
                                       5, 5, 5, 5, 4, 6, 6, 6, 6, 6, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 4}));
}

TEST(LineTable, ImplicitReturnUsesTheLastStatement) {
    auto code = frontendtest::findCode(frontendtest::compileOrFail("def f():\n    a = 1\n\n    b = 2\n"), "f");
    ASSERT_TRUE(code);
    EXPECT_EQ(code->lineTable.lineOf(static_cast<uint32_t>(code->instructions.size() - 1)), 4);
}

TEST(LineTable, RunsOfOneLocationShareOneEntry) {
    LineTable table;
    SourceRange a{{1, 1}, {1, 5}};
    SourceRange b{{2, 1}, {2, 5}};
    table.add(0, a);
    table.add(1, a);
    table.add(2, b);
    table.add(5, a);
    ASSERT_EQ(table.entries().size(), 3u);
    EXPECT_EQ(table.locationOf(1), a);
    EXPECT_EQ(table.locationOf(4), b);
    EXPECT_EQ(table.locationOf(9), a);
    EXPECT_EQ(table.lineOf(3), 2);
    EXPECT_EQ(LineTable().locationOf(0), SourceRange{});
}

TEST(LineTable, DecoratedFunctionsStartAtTheirFirstDecorator) {
    auto module = frontendtest::compileOrFail("import torch\n\n\n@torch.compile\ndef f(x):\n    return x\n");
    auto f = frontendtest::findCode(module, "f");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->firstLine, 4);
    EXPECT_EQ(f->lineTable.lineOf(0), 6);
}
