// The opcode table: names, operand kinds, flags and stack effects agree with each other and with CPython.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "frontend/opcodes.h"

using namespace eng::frontend;
namespace ops = eng::ops;

TEST(OpcodeTable, NamesAreUniqueCPythonStyleAndFindable) {
    std::set<std::string_view> names;
    for (size_t i = 0; i < kOpcodeCount; ++i) {
        auto opcode = static_cast<Opcode>(i);
        std::string_view name = opcodeName(opcode);
        EXPECT_TRUE(names.insert(name).second) << name;
        for (char c : name) EXPECT_TRUE(std::isupper(static_cast<unsigned char>(c)) || c == '_') << name;
        EXPECT_EQ(opcodeByName(name), opcode);
    }
    EXPECT_EQ(opcodeByName("NOT_AN_OPCODE"), std::nullopt);
    for (const char* name :
         {"LOAD_FAST", "STORE_FAST", "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD", "CALL", "CALL_KW", "BINARY_OP",
          "COMPARE_OP", "POP_JUMP_IF_FALSE", "FOR_ITER", "RETURN_VALUE", "MAKE_FUNCTION", "BUILD_LIST", "LOAD_DEREF",
          "LOAD_CLOSURE", "PUSH_EXC_INFO", "BEFORE_WITH", "IMPORT_NAME"})
        EXPECT_TRUE(opcodeByName(name).has_value()) << name;
}

TEST(OpcodeTable, JumpFlagsMatchJumpOperands) {
    for (size_t i = 0; i < kOpcodeCount; ++i) {
        auto opcode = static_cast<Opcode>(i);
        EXPECT_EQ(hasJump(opcode), opcodeInfo(opcode).operand == OperandKind::Jump) << opcodeName(opcode);
        if (opcodeInfo(opcode).flags & kJumpsBackward) {
            EXPECT_TRUE(hasJump(opcode)) << opcodeName(opcode);
        }
    }
}

TEST(OpcodeTable, StackEffects) {
    EXPECT_EQ(stackEffect(Opcode::LoadFast, 0, false), 1);
    EXPECT_EQ(stackEffect(Opcode::Call, 2, false), -3);  // callable, self_or_null, 2 args -> result
    EXPECT_EQ(stackEffect(Opcode::CallKw, 2, false), -4);
    EXPECT_EQ(stackEffect(Opcode::CallFunctionEx, 0, false), -2);
    EXPECT_EQ(stackEffect(Opcode::CallFunctionEx, kCallExHasKeywords, false), -3);
    EXPECT_EQ(stackEffect(Opcode::BuildMap, 3, false), -5);
    EXPECT_EQ(stackEffect(Opcode::BuildSlice, 3, false), -2);
    EXPECT_EQ(stackEffect(Opcode::UnpackSequence, 3, false), 2);
    EXPECT_EQ(stackEffect(Opcode::UnpackEx, 1 | (2 << 8), false), 3);
    EXPECT_EQ(stackEffect(Opcode::ForIter, 0, false), 1);
    EXPECT_EQ(stackEffect(Opcode::ForIter, 0, true), -1);
    EXPECT_EQ(stackEffect(Opcode::PopJumpIfTrue, 0, true), -1);
    EXPECT_EQ(stackEffect(Opcode::MakeFunction,
                          kMakeFunctionDefaults | kMakeFunctionKeywordDefaults | kMakeFunctionClosure, false),
              -3);
    EXPECT_EQ(stackEffect(Opcode::MakeFunction, 0, false), 0);
    EXPECT_EQ(stackEffect(Opcode::FormatValue, kFormatHasSpec, false), -1);
    EXPECT_EQ(stackEffect(Opcode::Copy, 3, false), 1);
    EXPECT_EQ(stackEffect(Opcode::Swap, 3, false), 0);
    EXPECT_EQ(stackEffect(Opcode::LoadMethod, 0, false), 1);
    EXPECT_EQ(stackEffect(Opcode::WithExceptStart, 0, false), 1);
    EXPECT_EQ(stackEffect(Opcode::RaiseVarargs, 2, false), -2);
    EXPECT_EQ(stackEffect(Opcode::ImportFrom, 0, false), 1);
    EXPECT_FALSE(fallsThrough(Opcode::ReturnValue));
    EXPECT_FALSE(fallsThrough(Opcode::JumpBackward));
    EXPECT_TRUE(fallsThrough(Opcode::PopJumpIfNone));
}

TEST(OpcodeTable, OperatorOperandsUseCPythonNumbers) {
    EXPECT_EQ(binaryOpArg(BinaryOperator::Add, false), 0u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::BitAnd, false), 1u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::MatrixMultiply, false), 4u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::Power, false), 8u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::Subtract, false), 10u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::TrueDivide, false), 11u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::Add, true), 13u);
    EXPECT_EQ(binaryOpArg(BinaryOperator::BitXor, true), 25u);
    EXPECT_EQ(binaryOpArgSymbol(5), "*");
    EXPECT_EQ(binaryOpArgSymbol(23), "-=");
    EXPECT_EQ(binaryOpArgSymbol(99), "?");
    EXPECT_EQ(compareOpArgSymbol(static_cast<uint32_t>(CompareOpArg::GreaterEqual)), ">=");
}

TEST(OpcodeTable, OperatorFunctionsAreTheOperatorModules) {
    EXPECT_EQ(ops::operatorFunction(BinaryOperator::BitAnd, false), "and_");
    EXPECT_EQ(ops::operatorFunction(BinaryOperator::BitAnd, true), "iand");
    EXPECT_EQ(ops::operatorFunction(BinaryOperator::TrueDivide, true), "itruediv");
    EXPECT_EQ(ops::inplaceDunder(BinaryOperator::FloorDivide), "__ifloordiv__");
    EXPECT_EQ(ops::reflectedDunder(BinaryOperator::BitXor), "__rxor__");
    EXPECT_FALSE(ops::binaryOperatorByFunction("or"));  // a keyword: operator.or_
    EXPECT_FALSE(ops::binaryOperatorByFunction("lt"));
    EXPECT_EQ(ops::compareOperatorByFunction("ge"), ops::CompareOperator::GreaterEqual);
    for (uint32_t arg = 0; arg < kBinaryOpArgCount; ++arg) {
        const auto operand = ops::decodeBinaryOpArg(arg);
        ASSERT_TRUE(operand);
        const auto back = ops::binaryOperatorByFunction(ops::operatorFunction(operand->op, operand->inplace));
        ASSERT_TRUE(back) << arg;
        EXPECT_EQ(binaryOpArg(back->op, back->inplace), arg);
    }
    for (const ops::CompareOperatorInfo& info : ops::kCompareOperators)
        EXPECT_EQ(ops::info(ops::info(info.reflected).reflected).function, info.function);
}
