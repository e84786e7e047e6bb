// The compiled form of one module, class body, function, lambda or comprehension: instructions, constant and
// name pools, variable layout, a line table back to source ranges and an exception table (CPython 3.11 style:
// protected instruction ranges -> handler, so that no instruction is spent on try blocks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "frontend/ast.h"
#include "frontend/opcodes.h"

namespace eng::frontend {

struct Instruction {
    Opcode opcode = Opcode::Nop;
    uint32_t arg = 0;

    friend bool operator==(const Instruction&, const Instruction&) = default;
};

struct CodeObject;
struct Constant;

/// A tuple of constants: keyword-name tuples for CALL_KW and from-import name lists.
struct ConstantTuple {
    std::vector<Constant> items;
};

/// An entry of the constant pool. Nested code objects live here, as in CPython, and are loaded by LOAD_CONST
/// right before MAKE_FUNCTION.
struct Constant {
    std::variant<NoneValue, EllipsisValue, bool, int64_t, double, std::string, ConstantTuple,
                 std::shared_ptr<const CodeObject>>
        value;
};

/// Same type and same value (floats compared bit for bit, code objects by identity): the pool's dedup rule,
/// which keeps 1, 1.0 and True apart although Python finds them equal.
bool sameConstant(const Constant& a, const Constant& b);
/// Python's repr of the constant; code objects read `<code object f, file "x.py", line 3>`.
std::string constantRepr(const Constant& constant);

/// Maps instruction offsets to source ranges: one entry per run of instructions sharing a location.
class LineTable {
public:
    struct Entry {
        uint32_t startOffset;
        SourceRange range;
    };

    /// Records that the instruction at `offset` (and the ones after it, until the next entry) comes from `range`;
    /// offsets must grow. A range equal to the current one adds nothing.
    void add(uint32_t offset, SourceRange range);
    /// The range of the instruction at `offset`; a default range before the first entry.
    SourceRange locationOf(uint32_t offset) const;
    int lineOf(uint32_t offset) const { return locationOf(offset).begin.line; }
    const std::vector<Entry>& entries() const { return entries_; }

private:
    std::vector<Entry> entries_;
};

/// While an instruction in [start, end) raises, the VM cuts the stack to `depth` values, pushes the exception
/// and continues at `target`.
struct ExceptionTableEntry {
    uint32_t start = 0;
    uint32_t end = 0;
    uint32_t target = 0;
    uint32_t depth = 0;

    friend bool operator==(const ExceptionTableEntry&, const ExceptionTableEntry&) = default;
};

enum class CodeKind : uint8_t { Module, Class, Function, Lambda, Comprehension };
std::string_view codeKindName(CodeKind kind);

struct CodeObject {
    CodeKind kind = CodeKind::Module;
    std::string name;           ///< f, <module>, <lambda>, <listcomp>, ...; a class body is named after the class
    std::string qualifiedName;  ///< __qualname__
    std::string filename;
    int firstLine = 1;

    // Parameters are the first argCount + keywordOnlyArgCount + hasVarArgs + hasVarKeywords varNames.
    int argCount = 0;  ///< positional parameters, positional-only ones included
    int positionalOnlyArgCount = 0;
    int keywordOnlyArgCount = 0;
    bool hasVarArgs = false;
    bool hasVarKeywords = false;
    /// Its body holds `yield` (CPython's CO_GENERATOR): a call binds the frame and returns a generator over it.
    bool isGenerator = false;

    std::vector<std::string> varNames;  ///< fast locals (LOAD_FAST)
    std::vector<std::string> cellVars;  ///< cells this frame creates on entry (LOAD_DEREF 0..)
    std::vector<std::string> freeVars;  ///< cells taken from the function's closure (after the cellVars)
    /// One per cellVar: the varNames index of the parameter whose argument starts in the cell, or -1.
    std::vector<int> cellParameters;
    std::vector<std::string> names;  ///< globals, namespace names, attributes and module names
    std::vector<Constant> constants;
    std::vector<Instruction> instructions;
    LineTable lineTable;
    std::vector<ExceptionTableEntry> exceptionTable;  ///< sorted by start; innermost handler per range
    int maxStackDepth = 0;                            ///< computed by the verifier
    std::optional<std::string> docstring;             ///< functions: their __doc__

    int parameterCount() const {
        return argCount + keywordOnlyArgCount + (hasVarArgs ? 1 : 0) + (hasVarKeywords ? 1 : 0);
    }
    /// Code objects in the constant pool, in pool order (functions, lambdas, classes, comprehensions).
    std::vector<std::shared_ptr<const CodeObject>> nestedCode() const;
    /// The name an operand of kind Deref refers to.
    const std::string& derefName(uint32_t index) const;
};

}  // namespace eng::frontend
