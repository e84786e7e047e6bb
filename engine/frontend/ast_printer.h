// A compact S-expression dump of the syntax tree, for tests and `cwb dis --ast`: `(= x (+ a 1))`.
#pragma once

#include <string>

#include "frontend/ast.h"

namespace eng::frontend {

struct AstPrintOptions {
    /// Append @line:col-line:col to every node's head (names and constants: to the atom).
    bool ranges = false;
};

std::string printExpr(const Expr& expr, const AstPrintOptions& options = {});
std::string printStmt(const Stmt& stmt, const AstPrintOptions& options = {});
/// One top-level statement per line.
std::string printModule(const Module& module, const AstPrintOptions& options = {});

}  // namespace eng::frontend
