// The bytecode verifier: checks one code object's structural invariants and computes its maximum stack depth.
#pragma once

#include <string>
#include <vector>

#include "frontend/code_object.h"

namespace eng::frontend {

struct VerifierReport {
    int maxStackDepth = 0;
    /// "offset 12: BINARY_OP pops 2 values but the stack holds 1", ...; empty when the code is sound.
    std::vector<std::string> problems;

    bool ok() const { return problems.empty(); }
};

/// Checks that every operand is in range for its kind (constants, names, locals, cells, jump targets,
/// structured flags); that every reachable instruction sees one stack depth whichever way it is reached,
/// never pops or reaches below the bottom, and never falls off the end; that backward jumps go backward;
/// that exception-table entries are ordered, in range, and only cover instructions whose stack holds at least
/// the handler's depth; that the line table covers every instruction in order; and that cell parameters name
/// parameters. Unreachable instructions are allowed (their depth is unknown) but still operand-checked.
VerifierReport verifyCode(const CodeObject& code);

/// verifyCode on `code` and on every nested code object, problems prefixed with the code's qualified name.
std::vector<std::string> verifyCodeTree(const CodeObject& code);

}  // namespace eng::frontend
