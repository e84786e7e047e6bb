// Disassembly text: headers, instruction lines with decoded operands, and the exception table.
#include "frontend/disassembler.h"

#include <fmt/core.h>

#include <set>

namespace eng::frontend {

namespace {

std::string joinNames(const std::vector<std::string>& names) {
    if (names.empty()) return "-";
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

std::string header(const CodeObject& code) {
    std::string flags;
    if (code.hasVarArgs) flags += " VARARGS";
    if (code.hasVarKeywords) flags += " VARKEYWORDS";
    if (!code.freeVars.empty()) flags += " NESTED";
    std::string out = fmt::format("Disassembly of <code object {}, file \"{}\", line {}>:\n", code.name, code.filename,
                                  code.firstLine);
    out += fmt::format("  {} {}: {} argument(s) ({} positional-only, {} keyword-only), flags:{}\n",
                       codeKindName(code.kind), code.qualifiedName, code.argCount, code.positionalOnlyArgCount,
                       code.keywordOnlyArgCount, flags.empty() ? " -" : flags);
    out += fmt::format("  locals: {}; cells: {}; free: {}; max stack: {}\n", joinNames(code.varNames),
                       joinNames(code.cellVars), joinNames(code.freeVars), code.maxStackDepth);
    if (code.docstring) out += fmt::format("  docstring: {}\n", constantRepr(Constant{*code.docstring}));
    return out;
}

}  // namespace

std::string operandRepr(const CodeObject& code, const Instruction& instruction) {
    uint32_t arg = instruction.arg;
    auto nameAt = [&](const std::vector<std::string>& pool) {
        return arg < pool.size() ? pool[arg] : std::string("?");
    };
    switch (opcodeInfo(instruction.opcode).operand) {
        case OperandKind::None:
        case OperandKind::Count:
        case OperandKind::StackIndex: return "";
        case OperandKind::Constant: return arg < code.constants.size() ? constantRepr(code.constants[arg]) : "?";
        case OperandKind::Name:
            if (instruction.opcode == Opcode::LoadMethod) return "NULL|self + " + nameAt(code.names);
            return nameAt(code.names);
        case OperandKind::Local: return nameAt(code.varNames);
        case OperandKind::Deref: return arg < code.cellVars.size() + code.freeVars.size() ? code.derefName(arg) : "?";
        case OperandKind::Jump: return fmt::format("to {}", arg);
        case OperandKind::BinaryOp: return std::string(binaryOpArgSymbol(arg));
        case OperandKind::CompareOp: return std::string(compareOpArgSymbol(arg));
        case OperandKind::Invert:
            if (instruction.opcode == Opcode::IsOp) return arg ? "is not" : "is";
            return arg ? "not in" : "in";
        case OperandKind::FormatFlags: {
            static constexpr const char* kConversions[] = {"", "str", "repr", "ascii"};
            std::string out = kConversions[arg & kFormatConversionMask];
            if (arg & kFormatHasSpec) out += out.empty() ? "with format" : ", with format";
            return out;
        }
        case OperandKind::FunctionFlags: {
            std::string out;
            if (arg & kMakeFunctionDefaults) out += "defaults";
            if (arg & kMakeFunctionKeywordDefaults) out += std::string(out.empty() ? "" : ", ") + "kwdefaults";
            if (arg & kMakeFunctionClosure) out += std::string(out.empty() ? "" : ", ") + "closure";
            return out;
        }
        case OperandKind::CallExFlags: return arg & kCallExHasKeywords ? "with kwargs" : "";
        case OperandKind::UnpackCounts: return fmt::format("{} before, {} after", arg & 0xFF, arg >> 8);
        case OperandKind::RaiseForm: return arg == 0 ? "re-raise" : arg == 1 ? "exception" : "exception from cause";
    }
    return "";
}

std::string disassemble(const CodeObject& code, const DisassemblyOptions& options) {
    std::string out = header(code) + "\n";
    std::set<uint32_t> targets;
    for (const Instruction& instruction : code.instructions)
        if (hasJump(instruction.opcode)) targets.insert(instruction.arg);
    for (const ExceptionTableEntry& entry : code.exceptionTable) targets.insert(entry.target);
    int lastLine = -1;
    for (size_t offset = 0; offset < code.instructions.size(); ++offset) {
        const Instruction& instruction = code.instructions[offset];
        SourceRange range = code.lineTable.locationOf(static_cast<uint32_t>(offset));
        std::string where;
        if (options.positions) {
            where = fmt::format("{:>17}", fmt::format("{}:{}-{}:{}", range.begin.line, range.begin.column,
                                                      range.end.line, range.end.column));
        } else {
            if (range.begin.line != lastLine && lastLine != -1) out += "\n";
            where = range.begin.line != lastLine ? fmt::format("{:>5}", range.begin.line) : std::string(5, ' ');
        }
        lastLine = range.begin.line;
        std::string line =
            fmt::format("{}  {} {:>5} {:<22}", where, targets.count(static_cast<uint32_t>(offset)) ? ">>" : "  ",
                        offset, opcodeName(instruction.opcode));
        if (opcodeInfo(instruction.opcode).operand != OperandKind::None) line += fmt::format(" {:>5}", instruction.arg);
        std::string meaning = operandRepr(code, instruction);
        if (!meaning.empty()) line += fmt::format(" ({})", meaning);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    if (!code.exceptionTable.empty()) {
        out += "ExceptionTable:\n";
        for (const ExceptionTableEntry& entry : code.exceptionTable)
            out += fmt::format("  {} to {} -> {} [{}]\n", entry.start, entry.end - 1, entry.target, entry.depth);
    }
    if (!options.nested) return out;
    for (const auto& nested : code.nestedCode()) out += "\n" + disassemble(*nested, options);
    return out;
}

}  // namespace eng::frontend
