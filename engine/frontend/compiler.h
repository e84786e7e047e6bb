// The bytecode compiler: a module's syntax tree and scopes to a tree of verified code objects. Also the whole
// front-end pipeline (lex, parse, scopes, compile, verify) in one call.
#pragma once

#include <memory>

#include "frontend/ast.h"
#include "frontend/code_object.h"
#include "frontend/scope.h"

namespace eng::frontend {

/// Compiles a parsed module. Every code object is verified (verifier.h) and carries its maxStackDepth.
/// The error side is an internal compiler error: the parser and scope analysis report user errors.
Expected<std::shared_ptr<const CodeObject>> compileModule(const Module& module, const ScopeTable& scopes,
                                                          const SourceFile& file);

/// Lexes, parses, analyses and compiles a script, stopping at the first error.
Expected<std::shared_ptr<const CodeObject>> compileSource(const SourceFile& file);

}  // namespace eng::frontend
