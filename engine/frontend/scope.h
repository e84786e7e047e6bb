// Scope analysis (Python's symtable): for every module, class, function, lambda and comprehension, how each
// name is reached (fast local, cell, free variable, global) and which cells and free variables its frame holds.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/ast.h"

namespace eng::frontend {

enum class ScopeKind : uint8_t { Module, Class, Function, Lambda, Comprehension };

/// How code in a scope reaches a name.
enum class SymbolKind : uint8_t {
    Local,           ///< bound here: a fast local in functions, the namespace dict in modules and classes
    Cell,            ///< bound here and captured by a nested scope: lives in a cell
    Free,            ///< bound in an enclosing function: reached through the closure's cell
    GlobalExplicit,  ///< declared `global` here
    GlobalImplicit,  ///< not bound in any enclosing function: module globals, then builtins
};

std::string_view scopeKindName(ScopeKind kind);
std::string_view symbolKindName(SymbolKind kind);

struct Scope {
    ScopeKind kind = ScopeKind::Module;
    std::string name;           ///< def/class name, or <module>, <lambda>, <listcomp>, <setcomp>, <dictcomp>, <genexpr>
    std::string qualifiedName;  ///< Python's __qualname__: outer.<locals>.inner, Class.method
    SourceRange range;
    std::map<std::string, SymbolKind> symbols;
    /// Functions only: parameters first (positional-only, positional, keyword-only, *args, **kwargs; ".0" for
    /// comprehensions), then the other fast locals in order of first appearance.
    std::vector<std::string> varNames;
    std::vector<std::string> cellVars;  ///< sorted; a class holds __class__ here when a method uses super()
    std::vector<std::string> freeVars;  ///< sorted; includes names only passed through to nested scopes
    int argCount = 0;                   ///< positional parameters, positional-only ones included
    int positionalOnlyArgCount = 0;
    int keywordOnlyArgCount = 0;
    bool hasVarArgs = false;
    bool hasVarKeywords = false;
    bool isGenerator = false;  ///< a function whose body holds `yield`: calling it makes a generator
    std::vector<const Scope*> children;

    bool isFunctionLike() const {
        return kind == ScopeKind::Function || kind == ScopeKind::Lambda || kind == ScopeKind::Comprehension;
    }
    /// GlobalImplicit for names the scope never mentions.
    SymbolKind lookup(const std::string& symbol) const;
    /// Index into varNames, or -1.
    int localIndex(const std::string& symbol) const;
    /// Index into cellVars followed by freeVars (the operand of LOAD_DEREF and friends), or -1.
    int derefIndex(const std::string& symbol) const;
};

/// The scopes of one module, reachable from the AST nodes that open them.
class ScopeTable {
public:
    const Scope& module() const { return *scopes_.front(); }
    /// The scope opened by a def or class statement (the Stmt), or by a lambda or comprehension (the Expr).
    const Scope& scopeOf(const void* node) const { return *byNode_.at(node); }

private:
    friend class ScopeBuilder;
    std::vector<std::unique_ptr<Scope>> scopes_;
    std::unordered_map<const void*, Scope*> byNode_;
};

/// Errors: global/nonlocal misuse with Python's wording (nonlocal at module level, no binding for nonlocal,
/// name used or assigned before its global declaration, parameter declared global or nonlocal).
Expected<ScopeTable> analyzeScopes(const Module& module, const SourceFile& file);

/// Readable dump for tests and debugging: one line per scope, indented by nesting:
///   function f: locals=[x] cells=[y] free=[] globals=[print]
std::string describeScopes(const ScopeTable& table);

}  // namespace eng::frontend
