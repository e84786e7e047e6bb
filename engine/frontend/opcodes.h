// Opcodes and their metadata, derived from opcodes.def, plus the encodings of structured operands
// (BINARY_OP's operator, COMPARE_OP's comparison, MAKE_FUNCTION's and FORMAT_VALUE's flags, UNPACK_EX's counts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "frontend/ast.h"
#include "ops/operators.h"

namespace eng::frontend {

/// What an instruction's 32-bit operand means; the verifier range-checks it and the disassembler decodes it.
enum class OperandKind : uint8_t {
    None,           ///< unused, always 0
    Constant,       ///< index into CodeObject::constants
    Name,           ///< index into CodeObject::names (globals, namespace names, attributes, modules)
    Local,          ///< index into CodeObject::varNames
    Deref,          ///< index into cellVars followed by freeVars
    Jump,           ///< absolute instruction index
    Count,          ///< number of values (BUILD_*, CALL, UNPACK_SEQUENCE, BUILD_SLICE)
    StackIndex,     ///< a depth into the stack, 1 = top (COPY, SWAP, LIST_APPEND, ...)
    BinaryOp,       ///< a BinaryOpArg
    CompareOp,      ///< a CompareOpArg
    Invert,         ///< 0 or 1: IS_OP 1 is `is not`, CONTAINS_OP 1 is `not in`
    FormatFlags,    ///< kFormat* bits
    FunctionFlags,  ///< kMakeFunction* bits
    CallExFlags,    ///< kCallExHasKeywords
    UnpackCounts,   ///< names before the starred target | names after << 8
    RaiseForm,      ///< 0 re-raise, 1 raise exc, 2 raise exc from cause
};

// Opcode flags (the table's last column).
inline constexpr uint8_t kHasJump = 1;        ///< the operand is a jump target
inline constexpr uint8_t kNoFallthrough = 2;  ///< never continues with the next instruction
inline constexpr uint8_t kJumpsBackward = 4;  ///< the target must not be after the instruction

enum class Opcode : uint8_t {
#define CWB_OPCODE(name, text, operand, pops, pushes, jumpPushes, flags) name,
#include "frontend/opcodes.def"
#undef CWB_OPCODE
};

inline constexpr size_t kOpcodeCount = 0
#define CWB_OPCODE(name, text, operand, pops, pushes, jumpPushes, flags) +1
#include "frontend/opcodes.def"
#undef CWB_OPCODE
    ;

struct OpcodeInfo {
    std::string_view name;  ///< CPython spelling: "LOAD_FAST"
    OperandKind operand;
    uint8_t flags;
};

const OpcodeInfo& opcodeInfo(Opcode opcode);
inline std::string_view opcodeName(Opcode opcode) {
    return opcodeInfo(opcode).name;
}
inline bool hasJump(Opcode opcode) {
    return (opcodeInfo(opcode).flags & kHasJump) != 0;
}
inline bool fallsThrough(Opcode opcode) {
    return (opcodeInfo(opcode).flags & kNoFallthrough) == 0;
}
std::optional<Opcode> opcodeByName(std::string_view name);

/// Values an instruction pops, and pushes when it falls through or when it jumps.
int stackPops(Opcode opcode, uint32_t arg);
int stackPushes(Opcode opcode, uint32_t arg);
int stackPushesOnJump(Opcode opcode, uint32_t arg);
/// Net change of the stack depth along the fall-through or the jump edge.
int stackEffect(Opcode opcode, uint32_t arg, bool jumping);

/// BINARY_OP's and COMPARE_OP's operands: numbered by the one operator table, ops/operators.def.
using ops::binaryOpArg;
using ops::binaryOpArgSymbol;
using ops::compareOpArgSymbol;
using ops::kBinaryOpArgCount;
using ops::kBinaryOpInplaceOffset;
using ops::kCompareOpArgCount;
using CompareOpArg = ops::CompareOperator;

/// MAKE_FUNCTION flags: which extra values sit below the code object, in this order from the bottom:
/// defaults tuple, keyword-only defaults dict, closure tuple of cells.
inline constexpr uint32_t kMakeFunctionDefaults = 0x01;
inline constexpr uint32_t kMakeFunctionKeywordDefaults = 0x02;
inline constexpr uint32_t kMakeFunctionClosure = 0x08;

/// FORMAT_VALUE flags: the conversion in the low two bits (0 none, 1 str, 2 repr, 3 ascii) and whether a
/// format spec string sits on top of the value.
inline constexpr uint32_t kFormatConversionMask = 0x03;
inline constexpr uint32_t kFormatHasSpec = 0x04;

/// CALL_FUNCTION_EX flag: a keyword dict sits on top of the positional tuple.
inline constexpr uint32_t kCallExHasKeywords = 0x01;

}  // namespace eng::frontend
