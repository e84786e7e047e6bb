// CodeBuilder: emission with stack-depth tracking, label resolution and exception-table construction.
// Inconsistencies here are compiler bugs, reported as std::logic_error.
#include "frontend/code_builder.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

namespace eng::frontend {

CodeBuilder::CodeBuilder(CodeKind kind, const Scope& scope, const std::string& filename, int firstLine)
    : code_(std::make_shared<CodeObject>()) {
    CodeObject& code = *code_;
    code.kind = kind;
    code.name = scope.name;
    code.qualifiedName = scope.qualifiedName;
    code.filename = filename;
    code.firstLine = firstLine;
    code.argCount = scope.argCount;
    code.positionalOnlyArgCount = scope.positionalOnlyArgCount;
    code.keywordOnlyArgCount = scope.keywordOnlyArgCount;
    code.hasVarArgs = scope.hasVarArgs;
    code.hasVarKeywords = scope.hasVarKeywords;
    code.isGenerator = scope.isGenerator;
    code.varNames = scope.varNames;
    code.cellVars = scope.cellVars;
    code.freeVars = scope.freeVars;
    for (const std::string& cell : code.cellVars) {
        int local = scope.localIndex(cell);
        code.cellParameters.push_back(local >= 0 && local < code.parameterCount() ? local : -1);
    }
}

void CodeBuilder::emit(Opcode opcode, uint32_t arg) {
    if (!reachable_) return;
    int pops = stackPops(opcode, arg);
    if (pops > depth_)
        throw std::logic_error(fmt::format("{} pops {} values from a stack of {}", opcodeName(opcode), pops, depth_));
    auto offset = static_cast<uint32_t>(code_->instructions.size());
    code_->instructions.push_back(Instruction{opcode, arg});
    code_->lineTable.add(offset, location_);
    int handler = active_.empty() ? -1 : active_.back();
    instructionHandler_.push_back(handler);
    if (handler >= 0 && !handlers_[static_cast<size_t>(handler)].referenced) {
        Handler& h = handlers_[static_cast<size_t>(handler)];
        h.referenced = true;
        noteLabelDepth(h.target, h.depth + 1);
    }
    depth_ += stackEffect(opcode, arg, false);
    if (!fallsThrough(opcode)) reachable_ = false;
}

void CodeBuilder::emitJump(Opcode opcode, Label target) {
    if (!reachable_) return;
    if (!hasJump(opcode)) throw std::logic_error(fmt::format("{} is not a jump", opcodeName(opcode)));
    noteLabelDepth(target, depth_ + stackEffect(opcode, 0, true));
    jumps_.emplace_back(code_->instructions.size(), target);
    emit(opcode, 0);
}

Label CodeBuilder::newLabel() {
    labels_.emplace_back();
    return Label{static_cast<int>(labels_.size() - 1)};
}

void CodeBuilder::noteLabelDepth(Label label, int depth) {
    LabelState& state = labels_.at(static_cast<size_t>(label.id));
    if (state.depth >= 0 && state.depth != depth)
        throw std::logic_error(
            fmt::format("label {} reached with stack depths {} and {}", label.id, state.depth, depth));
    state.depth = depth;
}

void CodeBuilder::bind(Label label) {
    LabelState& state = labels_.at(static_cast<size_t>(label.id));
    if (state.offset >= 0) throw std::logic_error(fmt::format("label {} bound twice", label.id));
    state.offset = static_cast<int>(code_->instructions.size());
    if (reachable_) {
        noteLabelDepth(label, depth_);
    } else if (state.depth >= 0) {
        reachable_ = true;
        depth_ = state.depth;
    }
}

uint32_t CodeBuilder::addConstant(Constant constant) {
    auto& pool = code_->constants;
    for (size_t i = 0; i < pool.size(); ++i)
        if (sameConstant(pool[i], constant)) return static_cast<uint32_t>(i);
    pool.push_back(std::move(constant));
    return static_cast<uint32_t>(pool.size() - 1);
}

uint32_t CodeBuilder::addName(std::string_view name) {
    auto& pool = code_->names;
    auto found = std::find(pool.begin(), pool.end(), name);
    if (found != pool.end()) return static_cast<uint32_t>(found - pool.begin());
    pool.emplace_back(name);
    return static_cast<uint32_t>(pool.size() - 1);
}

void CodeBuilder::pushHandler(Label target, int depth) {
    handlers_.push_back(Handler{target, depth});
    active_.push_back(static_cast<int>(handlers_.size() - 1));
}

void CodeBuilder::popHandler() {
    if (active_.empty()) throw std::logic_error("popHandler without an active handler");
    active_.pop_back();
}

std::shared_ptr<CodeObject> CodeBuilder::finish() {
    auto& instructions = code_->instructions;
    for (const auto& [index, label] : jumps_) {
        int target = labels_.at(static_cast<size_t>(label.id)).offset;
        if (target < 0) throw std::logic_error(fmt::format("jump to unbound label {}", label.id));
        Instruction& jump = instructions[index];
        jump.arg = static_cast<uint32_t>(target);
        if (jump.opcode == Opcode::JumpForward && static_cast<size_t>(target) <= index)
            jump.opcode = Opcode::JumpBackward;
    }
    // Runs of instructions covered by the same innermost handler become one table entry each.
    for (size_t i = 0; i < instructions.size();) {
        int handler = instructionHandler_[i];
        size_t end = i + 1;
        while (end < instructions.size() && instructionHandler_[end] == handler) ++end;
        if (handler >= 0) {
            const Handler& h = handlers_[static_cast<size_t>(handler)];
            int target = labels_.at(static_cast<size_t>(h.target.id)).offset;
            if (target < 0) throw std::logic_error("exception handler label never bound");
            ExceptionTableEntry entry{static_cast<uint32_t>(i), static_cast<uint32_t>(end),
                                      static_cast<uint32_t>(target), static_cast<uint32_t>(h.depth)};
            auto& table = code_->exceptionTable;
            // The same handler re-activated right after itself (except clauses) extends the previous entry.
            if (!table.empty() && table.back().end == entry.start && table.back().target == entry.target &&
                table.back().depth == entry.depth) {
                table.back().end = entry.end;
            } else {
                table.push_back(entry);
            }
        }
        i = end;
    }
    return code_;
}

}  // namespace eng::frontend
