// The verifier on hand-built code objects: stack depths, operand ranges, jumps, tables; and its max depth.
#include <gtest/gtest.h>

#include "frontend/verifier.h"
#include "frontend_test_support.h"

using namespace eng::frontend;

namespace {

CodeObject codeWith(std::vector<Instruction> instructions, size_t constants = 1) {
    CodeObject code;
    code.name = code.qualifiedName = "f";
    code.instructions = std::move(instructions);
    code.constants.resize(constants);
    for (size_t i = 0; i < constants; ++i) code.constants[i].value = static_cast<int64_t>(i);
    code.lineTable.add(0, SourceRange{{1, 1}, {1, 2}});
    return code;
}

std::vector<std::string> problemsOf(const CodeObject& code) {
    return verifyCode(code).problems;
}

}  // namespace

TEST(Verifier, AcceptsSoundCodeAndComputesTheMaximumDepth) {
    CodeObject code = codeWith({{Opcode::LoadConst, 0},
                                {Opcode::LoadConst, 0},
                                {Opcode::LoadConst, 0},
                                {Opcode::BuildTuple, 3},
                                {Opcode::ReturnValue, 0}});
    VerifierReport report = verifyCode(code);
    EXPECT_TRUE(report.ok()) << report.problems.front();
    EXPECT_EQ(report.maxStackDepth, 3);
}

TEST(Verifier, StackUnderflow) {
    EXPECT_EQ(problemsOf(codeWith({{Opcode::PopTop, 0}, {Opcode::ReturnConst, 0}})),
              std::vector<std::string>{"offset 0: POP_TOP needs 1 values but the stack holds 0"});
    EXPECT_EQ(problemsOf(codeWith(
                  {{Opcode::LoadConst, 0}, {Opcode::BuildList, 0}, {Opcode::ListAppend, 2}, {Opcode::ReturnConst, 0}})),
              std::vector<std::string>{"offset 2: LIST_APPEND needs 3 values but the stack holds 2"});
}

TEST(Verifier, InconsistentDepthsWhereEdgesMeet) {
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadConst, 0},
                                   {Opcode::LoadConst, 0},
                                   {Opcode::PopJumpIfFalse, 4},
                                   {Opcode::LoadConst, 0},
                                   {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 4: reached with stack depths 1 and 2"});
}

TEST(Verifier, FallingOffTheEnd) {
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadConst, 0}})),
              std::vector<std::string>{"offset 0: execution falls off the end of the code"});
    EXPECT_EQ(problemsOf(codeWith({})), std::vector<std::string>{"the code has no instructions"});
}

TEST(Verifier, OperandRanges) {
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadConst, 5}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 0: LOAD_CONST operand 5 is out of range (1 constants)"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadFast, 0}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 0: LOAD_FAST operand 0 is out of range (0 locals)"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadGlobal, 0}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 0: LOAD_GLOBAL operand 0 is out of range (0 names)"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadDeref, 0}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 0: LOAD_DEREF operand 0 is out of range (0 cells and free variables)"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::JumpForward, 7}})),
              std::vector<std::string>{"offset 0: JUMP_FORWARD operand 7 is out of range (1 instructions)"});
    EXPECT_EQ(problemsOf(codeWith(
                  {{Opcode::LoadConst, 0}, {Opcode::LoadConst, 0}, {Opcode::BinaryOp, 26}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 2: BINARY_OP operand 26 is out of range (26 binary operators)"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::ReturnConst, 0}, {Opcode::PopTop, 3}})),
              std::vector<std::string>{"offset 1: POP_TOP takes no operand but has 3"});
    EXPECT_EQ(problemsOf(codeWith(
                  {{Opcode::LoadConst, 0}, {Opcode::LoadConst, 0}, {Opcode::BuildSlice, 4}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 2: BUILD_SLICE takes 2 or 3 values, not 4"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::LoadConst, 0}, {Opcode::MakeFunction, 0}, {Opcode::ReturnValue, 0}})),
              std::vector<std::string>{"offset 1: MAKE_FUNCTION does not follow a LOAD_CONST of a code object"});
}

TEST(Verifier, JumpDirections) {
    EXPECT_EQ(problemsOf(codeWith({{Opcode::JumpBackward, 1}, {Opcode::ReturnConst, 0}})),
              std::vector<std::string>{"offset 0: JUMP_BACKWARD to 1 goes forward"});
    EXPECT_EQ(problemsOf(codeWith({{Opcode::Nop, 0}, {Opcode::JumpForward, 0}})),
              std::vector<std::string>{"offset 1: JUMP_FORWARD to 0 goes backward"});
}

TEST(Verifier, ExceptionHandlersGetTheirDepthPlusTheException) {
    // try: <load a value> except: return the exception -- the handler starts with one value, the exception.
    CodeObject code = codeWith({{Opcode::LoadConst, 0}, {Opcode::ReturnValue, 0}, {Opcode::ReturnValue, 0}});
    code.exceptionTable.push_back(ExceptionTableEntry{0, 2, 2, 0});
    EXPECT_TRUE(verifyCode(code).ok());
    code.exceptionTable[0].depth = 1;  // keeps more than the stack holds at offset 0
    EXPECT_EQ(problemsOf(code),
              std::vector<std::string>{"offset 0: the handler at 2 keeps 1 values but the stack holds 0"});
    code.exceptionTable = {{0, 2, 2, 0}, {1, 2, 2, 0}};
    EXPECT_EQ(problemsOf(code),
              std::vector<std::string>{"offset 1: exception table entries 0 and 1 overlap or are out of order"});
    code.exceptionTable = {{0, 5, 2, 0}};
    EXPECT_EQ(problemsOf(code),
              std::vector<std::string>{"offset 0: exception table entry 0 (0 to 5 -> 2) is out of range"});
}

TEST(Verifier, TablesMustDescribeTheCode) {
    CodeObject code = codeWith({{Opcode::ReturnConst, 0}});
    code.lineTable = LineTable();
    EXPECT_EQ(problemsOf(code), std::vector<std::string>{"the line table does not start at offset 0"});
    code = codeWith({{Opcode::ReturnConst, 0}});
    code.cellVars = {"x"};
    EXPECT_EQ(problemsOf(code), std::vector<std::string>{"cellParameters does not have one entry per cell variable"});
    code.cellParameters = {0};
    code.varNames = {"y"};
    code.argCount = 1;
    EXPECT_EQ(problemsOf(code), std::vector<std::string>{"cell 'x' names a parameter slot that is not its own"});
}

TEST(Verifier, UnreachableCodeIsAllowedButStillOperandChecked) {
    EXPECT_TRUE(verifyCode(codeWith({{Opcode::ReturnConst, 0}, {Opcode::PopTop, 0}})).ok());
    EXPECT_EQ(problemsOf(codeWith({{Opcode::ReturnConst, 0}, {Opcode::LoadConst, 9}})),
              std::vector<std::string>{"offset 1: LOAD_CONST operand 9 is out of range (1 constants)"});
}

TEST(Verifier, TreeVerificationNamesTheCodeObject) {
    auto inner = std::make_shared<CodeObject>(codeWith({{Opcode::PopTop, 0}, {Opcode::ReturnConst, 0}}));
    inner->qualifiedName = "outer.<locals>.inner";
    CodeObject outer = codeWith({{Opcode::LoadConst, 0}, {Opcode::MakeFunction, 0}, {Opcode::ReturnValue, 0}}, 0);
    outer.constants.resize(1);
    outer.constants[0].value = std::shared_ptr<const CodeObject>(inner);
    EXPECT_EQ(verifyCodeTree(outer),
              std::vector<std::string>{"outer.<locals>.inner: offset 0: POP_TOP needs 1 values but the stack holds 0"});
}

TEST(Verifier, CompiledCodeCarriesTheVerifiersDepth) {
    auto code = frontendtest::compileOrFail("def f(a, b, c, d):\n    return g(a, (b, [c, {d: a}]))\n");
    auto f = frontendtest::findCode(code, "f");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->maxStackDepth, verifyCode(*f).maxStackDepth);
    EXPECT_EQ(f->maxStackDepth, 7);  // g, NULL, a, b, c, d, a
    EXPECT_TRUE(verifyCodeTree(*code).empty());
}
