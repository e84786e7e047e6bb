// Token kinds (one X-macro list, from which the enum and the spellings derive) and the Token the lexer emits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/source.h"

namespace eng::frontend {

// X(Kind, spelling): structural tokens, literals, then operators and delimiters.
#define CWB_TOKEN_KINDS(X)      \
    X(EndOfFile, "end of file") \
    X(Newline, "newline")       \
    X(Indent, "indent")         \
    X(Dedent, "dedent")         \
    X(Name, "name")             \
    X(Integer, "integer")       \
    X(Float, "float")           \
    X(String, "string")         \
    X(FString, "f-string")      \
    X(LeftParen, "(")           \
    X(RightParen, ")")          \
    X(LeftBracket, "[")         \
    X(RightBracket, "]")        \
    X(LeftBrace, "{")           \
    X(RightBrace, "}")          \
    X(Comma, ",")               \
    X(Colon, ":")               \
    X(Semicolon, ";")           \
    X(Dot, ".")                 \
    X(Ellipsis, "...")          \
    X(Arrow, "->")              \
    X(ColonEqual, ":=")         \
    X(Equal, "=")               \
    X(Plus, "+")                \
    X(Minus, "-")               \
    X(Star, "*")                \
    X(DoubleStar, "**")         \
    X(Slash, "/")               \
    X(DoubleSlash, "//")        \
    X(Percent, "%")             \
    X(At, "@")                  \
    X(Ampersand, "&")           \
    X(Pipe, "|")                \
    X(Caret, "^")               \
    X(Tilde, "~")               \
    X(LeftShift, "<<")          \
    X(RightShift, ">>")         \
    X(Less, "<")                \
    X(Greater, ">")             \
    X(LessEqual, "<=")          \
    X(GreaterEqual, ">=")       \
    X(EqualEqual, "==")         \
    X(NotEqual, "!=")           \
    X(PlusEqual, "+=")          \
    X(MinusEqual, "-=")         \
    X(StarEqual, "*=")          \
    X(DoubleStarEqual, "**=")   \
    X(SlashEqual, "/=")         \
    X(DoubleSlashEqual, "//=")  \
    X(PercentEqual, "%=")       \
    X(AtEqual, "@=")            \
    X(AmpersandEqual, "&=")     \
    X(PipeEqual, "|=")          \
    X(CaretEqual, "^=")         \
    X(LeftShiftEqual, "<<=")    \
    X(RightShiftEqual, ">>=")

// X(Kind, word): Python's hard keywords. Soft keywords (match, case, type) stay names.
#define CWB_KEYWORDS(X)            \
    X(KeywordFalse, "False")       \
    X(KeywordNone, "None")         \
    X(KeywordTrue, "True")         \
    X(KeywordAnd, "and")           \
    X(KeywordAs, "as")             \
    X(KeywordAssert, "assert")     \
    X(KeywordAsync, "async")       \
    X(KeywordAwait, "await")       \
    X(KeywordBreak, "break")       \
    X(KeywordClass, "class")       \
    X(KeywordContinue, "continue") \
    X(KeywordDef, "def")           \
    X(KeywordDel, "del")           \
    X(KeywordElif, "elif")         \
    X(KeywordElse, "else")         \
    X(KeywordExcept, "except")     \
    X(KeywordFinally, "finally")   \
    X(KeywordFor, "for")           \
    X(KeywordFrom, "from")         \
    X(KeywordGlobal, "global")     \
    X(KeywordIf, "if")             \
    X(KeywordImport, "import")     \
    X(KeywordIn, "in")             \
    X(KeywordIs, "is")             \
    X(KeywordLambda, "lambda")     \
    X(KeywordNonlocal, "nonlocal") \
    X(KeywordNot, "not")           \
    X(KeywordOr, "or")             \
    X(KeywordPass, "pass")         \
    X(KeywordRaise, "raise")       \
    X(KeywordReturn, "return")     \
    X(KeywordTry, "try")           \
    X(KeywordWhile, "while")       \
    X(KeywordWith, "with")         \
    X(KeywordYield, "yield")

enum class TokenKind : uint8_t {
#define CWB_TOKEN_ENUM(kind, spelling) kind,
    CWB_TOKEN_KINDS(CWB_TOKEN_ENUM)
#undef CWB_TOKEN_ENUM
#define CWB_KEYWORD_ENUM(kind, word) kind,
        CWB_KEYWORDS(CWB_KEYWORD_ENUM)
#undef CWB_KEYWORD_ENUM
};

/// How the kind reads in a message: the punctuation or keyword itself, or a word ("name", "newline").
std::string_view tokenKindSpelling(TokenKind kind);
/// The keyword kind for a word, or TokenKind::Name when the word is not a keyword.
TokenKind keywordKind(std::string_view word);
bool isKeyword(TokenKind kind);

/// One piece of an f-string body: literal text, or a replacement field `{expr=!c:spec}`.
struct FStringPiece {
    bool isField = false;
    std::string literal;  ///< decoded text ({{ and }} already collapsed) when !isField
    // Replacement field: the expression is kept as a byte range of the source, so that the parser can
    // lex and parse it in place and every node gets its real position.
    size_t exprBegin = 0;
    size_t exprEnd = 0;
    SourcePos exprPos;
    std::string debugText;  ///< `x = ` for the self-documenting form f"{x = }", else empty
    char conversion = 0;    ///< 0, 's', 'r' or 'a'
    bool hasFormatSpec = false;
    std::vector<FStringPiece> formatSpec;  ///< the spec after ':' may hold nested fields
};

struct Token {
    TokenKind kind = TokenKind::EndOfFile;
    SourceRange range;
    /// Identifier or keyword text, the number's spelling, or the decoded value of a string literal.
    std::string text;
    int64_t intValue = 0;
    double floatValue = 0.0;
    std::shared_ptr<const std::vector<FStringPiece>> fstring;  ///< the pieces of an FString token
};

}  // namespace eng::frontend
