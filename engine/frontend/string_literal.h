// String literals: plain, raw and triple-quoted strings (escapes decoded) and f-strings (split into literal
// pieces and replacement fields whose expressions the parser lexes in place). Internal to the lexer.
#pragma once

#include <string_view>

#include "frontend/lex_cursor.h"
#include "frontend/token.h"

namespace eng::frontend {

/// True when `word` is a string prefix the subset accepts or names as unsupported (r, u, f, b and their
/// combinations, in any case).
bool isStringPrefix(std::string_view word);

/// Lexes one literal. Its prefix (possibly empty) began at `start` and is consumed; the cursor is on the
/// opening quote.
/// Fills `token` with kind String (text = decoded value) or FString (pieces). Throws FrontendError for an
/// unterminated literal, a bad escape, a malformed f-string or a bytes literal (unsupported).
void lexStringLiteral(LexCursor& cursor, std::string_view prefix, SourcePos start, Token& token);

}  // namespace eng::frontend
