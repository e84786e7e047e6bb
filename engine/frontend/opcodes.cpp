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

}  // namespace eng::frontend
