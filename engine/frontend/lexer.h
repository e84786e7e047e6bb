// The lexer: script text to tokens, with Python's INDENT/DEDENT, implicit line joining inside brackets,
// backslash continuation, comments, numbers and every string form of the subset.
#pragma once

#include <vector>

#include "frontend/source.h"
#include "frontend/token.h"

namespace eng::frontend {

/// Tokens of a whole script, ending with NEWLINE (when the last line has tokens), one DEDENT per open
/// indentation level, and EndOfFile. Errors: bad indentation, unclosed or mismatched brackets,
/// unterminated strings, malformed numbers, invalid characters, and unsupported literals (bytes, imaginary).
Expected<std::vector<Token>> tokenize(const SourceFile& file);

/// Tokens of an f-string replacement field: the bytes [begin, end) of `file`, starting at `pos`, lexed as if
/// inside parentheses (no NEWLINE or INDENT), ending with EndOfFile. Throws FrontendError.
std::vector<Token> tokenizeFieldExpression(const SourceFile& file, size_t begin, size_t end, SourcePos pos);

}  // namespace eng::frontend
