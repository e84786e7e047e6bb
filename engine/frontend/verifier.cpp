// The verifier: operand ranges per operand kind, table invariants, then a worklist walk over the control-flow
// edges (fall-through, jumps, exception handlers) that assigns each reachable instruction its stack depth.
#include "frontend/verifier.h"

#include <fmt/core.h>

#include <algorithm>

namespace eng::frontend {

namespace {

class Verifier {
public:
    explicit Verifier(const CodeObject& code) : code_(code), count_(code.instructions.size()) {}

    VerifierReport run();

private:
    void problem(size_t offset, std::string text) {
        report_.problems.push_back(fmt::format("offset {}: {}", offset, std::move(text)));
    }
    void checkOperand(size_t offset);
    void checkTables();
    void checkStackDepths();
    /// How many values the instruction needs on the stack: what it pops, or more when it reaches below that.
    int requiredDepth(const Instruction& instruction) const;
    void reach(size_t target, int depth, size_t from);

    const CodeObject& code_;
    size_t count_;
    VerifierReport report_;
    std::vector<int> depths_;
    std::vector<size_t> work_;
};

VerifierReport Verifier::run() {
    if (count_ == 0) {
        report_.problems.push_back("the code has no instructions");
        return report_;
    }
    for (size_t i = 0; i < count_; ++i) checkOperand(i);
    checkTables();
    if (report_.ok()) checkStackDepths();  // the walk trusts operands and tables
    return report_;
}

void Verifier::checkOperand(size_t offset) {
    const Instruction& instruction = code_.instructions[offset];
    if (static_cast<size_t>(instruction.opcode) >= kOpcodeCount) return problem(offset, "unknown opcode");
    uint32_t arg = instruction.arg;
    std::string_view name = opcodeName(instruction.opcode);
    auto outOf = [&](size_t limit, std::string_view what) {
        if (arg >= limit) problem(offset, fmt::format("{} operand {} is out of range ({} {})", name, arg, limit, what));
    };
    switch (opcodeInfo(instruction.opcode).operand) {
        case OperandKind::None:
            if (arg != 0) problem(offset, fmt::format("{} takes no operand but has {}", name, arg));
            break;
        case OperandKind::Constant: outOf(code_.constants.size(), "constants"); break;
        case OperandKind::Name: outOf(code_.names.size(), "names"); break;
        case OperandKind::Local: outOf(code_.varNames.size(), "locals"); break;
        case OperandKind::Deref:
            outOf(code_.cellVars.size() + code_.freeVars.size(), "cells and free variables");
            break;
        case OperandKind::Jump: outOf(count_, "instructions"); break;
        case OperandKind::Count:
            if (instruction.opcode == Opcode::BuildSlice && arg != 2 && arg != 3)
                problem(offset, fmt::format("BUILD_SLICE takes 2 or 3 values, not {}", arg));
            break;
        case OperandKind::StackIndex:
            if (arg == 0) problem(offset, fmt::format("{} needs a stack index of at least 1", name));
            break;
        case OperandKind::BinaryOp: outOf(kBinaryOpArgCount, "binary operators"); break;
        case OperandKind::CompareOp: outOf(kCompareOpArgCount, "comparisons"); break;
        case OperandKind::Invert: outOf(2, "flags"); break;
        case OperandKind::FormatFlags: outOf(8, "format flags"); break;
        case OperandKind::FunctionFlags:
            if (arg & ~(kMakeFunctionDefaults | kMakeFunctionKeywordDefaults | kMakeFunctionClosure))
                problem(offset, fmt::format("MAKE_FUNCTION has unknown flags {:#x}", arg));
            break;
        case OperandKind::CallExFlags: outOf(2, "flags"); break;
        case OperandKind::UnpackCounts: break;
        case OperandKind::RaiseForm: outOf(3, "raise forms"); break;
    }
    if (instruction.opcode == Opcode::MakeFunction) {
        // MAKE_FUNCTION always takes the code object that the instruction before it loaded.
        const Instruction* previous = offset > 0 ? &code_.instructions[offset - 1] : nullptr;
        bool loadsCode =
            previous && previous->opcode == Opcode::LoadConst && previous->arg < code_.constants.size() &&
            std::holds_alternative<std::shared_ptr<const CodeObject>>(code_.constants[previous->arg].value);
        if (!loadsCode) problem(offset, "MAKE_FUNCTION does not follow a LOAD_CONST of a code object");
    }
    if (hasJump(instruction.opcode) && arg < count_) {
        bool backward = arg <= offset;
        if ((opcodeInfo(instruction.opcode).flags & kJumpsBackward) && !backward)
            problem(offset, fmt::format("{} to {} goes forward", name, arg));
        if (instruction.opcode == Opcode::JumpForward && backward)
            problem(offset, fmt::format("JUMP_FORWARD to {} goes backward", arg));
    }
}

void Verifier::checkTables() {
    const auto& table = code_.exceptionTable;
    for (size_t i = 0; i < table.size(); ++i) {
        const ExceptionTableEntry& entry = table[i];
        if (entry.start >= entry.end || entry.end > count_ || entry.target >= count_)
            problem(entry.start, fmt::format("exception table entry {} ({} to {} -> {}) is out of range", i,
                                             entry.start, entry.end, entry.target));
        if (i > 0 && table[i - 1].end > entry.start)
            problem(entry.start,
                    fmt::format("exception table entries {} and {} overlap or are out of order", i - 1, i));
    }
    const auto& lines = code_.lineTable.entries();
    if (lines.empty() || lines.front().startOffset != 0)
        report_.problems.push_back("the line table does not start at offset 0");
    for (size_t i = 1; i < lines.size(); ++i)
        if (lines[i].startOffset <= lines[i - 1].startOffset || lines[i].startOffset >= count_)
            report_.problems.push_back(fmt::format("line table entry {} is out of order or past the code", i));
    if (code_.cellParameters.size() != code_.cellVars.size())
        report_.problems.push_back("cellParameters does not have one entry per cell variable");
    for (size_t i = 0; i < code_.cellParameters.size() && i < code_.cellVars.size(); ++i) {
        int parameter = code_.cellParameters[i];
        if (parameter >= 0 && (parameter >= code_.parameterCount() ||
                               code_.varNames[static_cast<size_t>(parameter)] != code_.cellVars[i]))
            report_.problems.push_back(
                fmt::format("cell '{}' names a parameter slot that is not its own", code_.cellVars[i]));
    }
    if (static_cast<int>(code_.varNames.size()) < code_.parameterCount())
        report_.problems.push_back("fewer local names than parameters");
}

int Verifier::requiredDepth(const Instruction& instruction) const {
    int pops = stackPops(instruction.opcode, instruction.arg);
    switch (instruction.opcode) {
        case Opcode::ListAppend:
        case Opcode::SetAdd:
        case Opcode::ListExtend:
        case Opcode::SetUpdate:
        case Opcode::DictUpdate:
        case Opcode::DictMerge:
        case Opcode::MapAdd:
            return pops + static_cast<int>(instruction.arg);  // the container sits arg deep after the pops
        default: return pops;
    }
}

void Verifier::reach(size_t target, int depth, size_t from) {
    if (target >= count_) return problem(from, "execution falls off the end of the code");
    if (depths_[target] < 0) {
        depths_[target] = depth;
        work_.push_back(target);
    } else if (depths_[target] != depth) {
        problem(target, fmt::format("reached with stack depths {} and {}", depths_[target], depth));
    }
}

void Verifier::checkStackDepths() {
    depths_.assign(count_, -1);
    reach(0, 0, 0);
    while (!work_.empty()) {
        size_t offset = work_.back();
        work_.pop_back();
        const Instruction& instruction = code_.instructions[offset];
        int depth = depths_[offset];
        for (const ExceptionTableEntry& entry : code_.exceptionTable) {
            if (offset < entry.start || offset >= entry.end) continue;
            if (depth < static_cast<int>(entry.depth)) {
                problem(offset, fmt::format("the handler at {} keeps {} values but the stack holds {}", entry.target,
                                            entry.depth, depth));
            } else {
                reach(entry.target, static_cast<int>(entry.depth) + 1, offset);
            }
        }
        int needed = requiredDepth(instruction);
        if (depth < needed) {
            problem(offset, fmt::format("{} needs {} values but the stack holds {}", opcodeName(instruction.opcode),
                                        needed, depth));
            continue;
        }
        int after = depth + stackEffect(instruction.opcode, instruction.arg, false);
        report_.maxStackDepth = std::max({report_.maxStackDepth, depth, after});
        if (hasJump(instruction.opcode)) {
            int jumped = depth + stackEffect(instruction.opcode, instruction.arg, true);
            report_.maxStackDepth = std::max(report_.maxStackDepth, jumped);
            reach(instruction.arg, jumped, offset);
        }
        if (fallsThrough(instruction.opcode)) reach(offset + 1, after, offset);
    }
}

}  // namespace

VerifierReport verifyCode(const CodeObject& code) {
    return Verifier(code).run();
}

std::vector<std::string> verifyCodeTree(const CodeObject& code) {
    std::vector<std::string> problems;
    for (const std::string& problem : verifyCode(code).problems)
        problems.push_back(code.qualifiedName + ": " + problem);
    for (const auto& nested : code.nestedCode()) {
        std::vector<std::string> inner = verifyCodeTree(*nested);
        problems.insert(problems.end(), inner.begin(), inner.end());
    }
    return problems;
}

}  // namespace eng::frontend
