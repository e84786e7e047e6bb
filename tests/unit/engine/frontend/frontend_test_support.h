// Helpers shared by the front-end tests: run a pass on inline source and print its result compactly.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "frontend/ast_printer.h"
#include "frontend/compiler.h"
#include "frontend/disassembler.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "frontend/scope.h"

namespace frontendtest {

/// The module's S-expression, or "error: <rendered diagnostic>".
inline std::string parseToText(const std::string& source, bool ranges = false) {
    eng::frontend::SourceFile file("t.py", source);
    auto module = eng::frontend::parseModule(file);
    if (!module) return "error: " + module.error().render();
    return eng::frontend::printModule(*module, eng::frontend::AstPrintOptions{ranges});
}

/// The one statement's S-expression (no trailing newline), or "error: ...".
inline std::string parseStatement(const std::string& source) {
    std::string text = parseToText(source);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

/// The rendered diagnostic of a source that must fail to compile (parse, scopes or compile), or "no error".
inline std::string compileError(const std::string& source, const std::string& name = "t.py") {
    eng::frontend::SourceFile file(name, source);
    auto code = eng::frontend::compileSource(file);
    return code ? std::string("no error") : code.error().render();
}

inline std::shared_ptr<const eng::frontend::CodeObject> compileOrFail(const std::string& source) {
    eng::frontend::SourceFile file("t.py", source);
    auto code = eng::frontend::compileSource(file);
    if (!code) {
        ADD_FAILURE() << code.error().render();
        return nullptr;
    }
    return *code;
}

/// The nested code object with this name (depth first), or null.
inline std::shared_ptr<const eng::frontend::CodeObject> findCode(
    const std::shared_ptr<const eng::frontend::CodeObject>& code, const std::string& name) {
    if (!code) return nullptr;
    if (code->name == name) return code;
    for (const auto& nested : code->nestedCode())
        if (auto found = findCode(nested, name)) return found;
    return nullptr;
}

/// One instruction per line: "OPNAME operand-meaning" (jumps as "to N"), without offsets or lines.
inline std::string listing(const eng::frontend::CodeObject& code) {
    std::string out;
    for (const auto& instruction : code.instructions) {
        out += eng::frontend::opcodeName(instruction.opcode);
        auto kind = eng::frontend::opcodeInfo(instruction.opcode).operand;
        std::string meaning = kind == eng::frontend::OperandKind::Name ? code.names.at(instruction.arg)
                                                                       : eng::frontend::operandRepr(code, instruction);
        if (!meaning.empty()) {
            out += " " + meaning;
        } else if (kind != eng::frontend::OperandKind::None) {
            out += " " + std::to_string(instruction.arg);
        }
        out += "\n";
    }
    return out;
}

/// listing() of the named code object in the compiled source.
inline std::string listingOf(const std::string& source, const std::string& name) {
    auto code = findCode(compileOrFail(source), name);
    if (!code) return "no code object named " + name;
    return listing(*code);
}

}  // namespace frontendtest
