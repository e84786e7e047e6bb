// The disassembler, in the spirit of Python's dis: a header per code object, then one line per instruction
// (source line, jump-target mark, offset, opcode, operand, decoded operand), the exception table, and the
// nested code objects after their parent.
#pragma once

#include <string>

#include "frontend/code_object.h"

namespace eng::frontend {

struct DisassemblyOptions {
    /// Show every instruction's full source range (line:col-line:col) instead of the line where it changes.
    bool positions = false;
    /// Follow with the nested code objects (functions, lambdas, classes, comprehensions), depth first.
    bool nested = true;
};

std::string disassemble(const CodeObject& code, const DisassemblyOptions& options = {});

/// What the operand means, as shown in parentheses: "torch", "to 12", "+=", "NULL + self" ... ; empty when
/// there is nothing to add to the number.
std::string operandRepr(const CodeObject& code, const Instruction& instruction);

}  // namespace eng::frontend
