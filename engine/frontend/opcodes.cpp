// Opcode metadata tables and stack-effect functions, expanded from opcodes.def.
#include "frontend/opcodes.h"

#include <array>

namespace eng::frontend {

namespace {

constexpr std::array<OpcodeInfo, kOpcodeCount> kOpcodeInfo = {{
#define CWB_OPCODE(name, text, operand, pops, pushes, jumpPushes, flags) {text, OperandKind::operand, flags},
#include "frontend/opcodes.def"
#undef CWB_OPCODE
}};

constexpr std::string_view kBinaryOpSymbols[kBinaryOpArgCount] = {
    "+",  "&",  "//",  "<<",  "@",  "*",  "%",  "|",  "**",  ">>",  "-",  "/",  "^",
    "+=", "&=", "//=", "<<=", "@=", "*=", "%=", "|=", "**=", ">>=", "-=", "/=", "^=",
};

constexpr std::string_view kCompareOpSymbols[kCompareOpArgCount] = {"<", "<=", "==", "!=", ">", ">="};

}  // namespace

const OpcodeInfo& opcodeInfo(Opcode opcode) {
    return kOpcodeInfo[static_cast<size_t>(opcode)];
}

std::optional<Opcode> opcodeByName(std::string_view name) {
    for (size_t i = 0; i < kOpcodeCount; ++i)
        if (kOpcodeInfo[i].name == name) return static_cast<Opcode>(i);
    return std::nullopt;
}

int stackPops(Opcode opcode, uint32_t arg) {
    switch (opcode) {
#define CWB_OPCODE(name, text, operand, pops, pushes, jumpPushes, flags) \
    case Opcode::name:                                                   \
        return static_cast<int>(pops);
#include "frontend/opcodes.def"
#undef CWB_OPCODE
    }
    return 0;
}

int stackPushes(Opcode opcode, uint32_t arg) {
    switch (opcode) {
#define CWB_OPCODE(name, text, operand, pops, pushes, jumpPushes, flags) \
    case Opcode::name:                                                   \
        return static_cast<int>(pushes);
#include "frontend/opcodes.def"
#undef CWB_OPCODE
    }
    return 0;
}

int stackPushesOnJump(Opcode opcode, uint32_t arg) {
    if (!hasJump(opcode)) return stackPushes(opcode, arg);
    switch (opcode) {
#define CWB_OPCODE(name, text, operand, pops, pushes, jumpPushes, flags) \
    case Opcode::name:                                                   \
        return static_cast<int>(jumpPushes);
#include "frontend/opcodes.def"
#undef CWB_OPCODE
    }
    return 0;
}

int stackEffect(Opcode opcode, uint32_t arg, bool jumping) {
    int pushed = jumping ? stackPushesOnJump(opcode, arg) : stackPushes(opcode, arg);
    return pushed - stackPops(opcode, arg);
}

uint32_t binaryOpArg(BinaryOperator op, bool inplace) {
    BinaryOpArg arg = BinaryOpArg::Add;
    switch (op) {
        case BinaryOperator::Add: arg = BinaryOpArg::Add; break;
        case BinaryOperator::Subtract: arg = BinaryOpArg::Subtract; break;
        case BinaryOperator::Multiply: arg = BinaryOpArg::Multiply; break;
        case BinaryOperator::MatrixMultiply: arg = BinaryOpArg::MatrixMultiply; break;
        case BinaryOperator::TrueDivide: arg = BinaryOpArg::TrueDivide; break;
        case BinaryOperator::FloorDivide: arg = BinaryOpArg::FloorDivide; break;
        case BinaryOperator::Remainder: arg = BinaryOpArg::Remainder; break;
        case BinaryOperator::Power: arg = BinaryOpArg::Power; break;
        case BinaryOperator::LeftShift: arg = BinaryOpArg::LeftShift; break;
        case BinaryOperator::RightShift: arg = BinaryOpArg::RightShift; break;
        case BinaryOperator::BitOr: arg = BinaryOpArg::Or; break;
        case BinaryOperator::BitXor: arg = BinaryOpArg::Xor; break;
        case BinaryOperator::BitAnd: arg = BinaryOpArg::And; break;
    }
    return static_cast<uint32_t>(arg) + (inplace ? kBinaryOpInplaceOffset : 0);
}

std::string_view binaryOpArgSymbol(uint32_t arg) {
    return arg < kBinaryOpArgCount ? kBinaryOpSymbols[arg] : "?";
}

std::string_view compareOpArgSymbol(uint32_t arg) {
    return arg < kCompareOpArgCount ? kCompareOpSymbols[arg] : "?";
}

}  // namespace eng::frontend
