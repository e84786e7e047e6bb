// The parser: tokens to the syntax tree of ast.h, with Python's error wording and `unsupported syntax`
// errors for valid Python outside the subset (engine/SUBSET.md).
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

namespace eng::frontend {

/// Lexes and parses a whole script. Also rejects return/break/continue outside their construct and
/// invalid assignment targets, as Python's parser does.
Expected<Module> parseModule(const SourceFile& file);

}  // namespace eng::frontend
