// String literal scanning: escapes, raw and triple-quoted forms, and the split of f-strings into pieces.
// Replacement-field expressions are only delimited here (brackets and nested strings skipped, PEP 701 style);
// the parser lexes and parses them in place so that their nodes carry real source positions.
#include "frontend/string_literal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

namespace eng::frontend {

namespace {

struct LiteralStyle {
    char quote = '"';
    bool triple = false;
    bool raw = false;
    bool formatted = false;
    SourcePos start;
};

void appendUtf8(std::string& out, uint32_t codePoint) {
    if (codePoint < 0x80) {
        out += static_cast<char>(codePoint);
    } else if (codePoint < 0x800) {
        out += static_cast<char>(0xC0 | (codePoint >> 6));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else if (codePoint < 0x10000) {
        out += static_cast<char>(0xE0 | (codePoint >> 12));
        out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (codePoint >> 18));
        out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    }
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

uint32_t readHexDigits(LexCursor& cursor, int count, char escape, SourcePos at) {
    uint32_t value = 0;
    for (int i = 0; i < count; ++i) {
        int digit = hexValue(cursor.peek());
        if (digit < 0) cursor.fail(at, fmt::format("truncated \\{} escape: expected {} hex digits", escape, count));
        value = value * 16 + static_cast<uint32_t>(digit);
        cursor.advance();
    }
    return value;
}

/// Decodes the escape whose backslash is at the cursor. An unknown escape keeps its backslash (as Python
/// does, with only a warning there) and leaves the next character for the caller.
void decodeEscape(LexCursor& cursor, std::string& out) {
    SourcePos at = cursor.pos();
    cursor.advance();  // the backslash
    char c = cursor.peek();
    auto take = [&](char decoded) {
        cursor.advance();
        out += decoded;
    };
    switch (c) {
        case '\n': cursor.advance(); return;  // backslash-newline joins the lines
        case '\\': take('\\'); return;
        case '\'': take('\''); return;
        case '"': take('"'); return;
        case 'a': take('\a'); return;
        case 'b': take('\b'); return;
        case 'f': take('\f'); return;
        case 'n': take('\n'); return;
        case 'r': take('\r'); return;
        case 't': take('\t'); return;
        case 'v': take('\v'); return;
        case 'x':
            cursor.advance();
            appendUtf8(out, readHexDigits(cursor, 2, 'x', at));
            return;
        case 'u':
            cursor.advance();
            appendUtf8(out, readHexDigits(cursor, 4, 'u', at));
            return;
        case 'U': {
            cursor.advance();
            uint32_t codePoint = readHexDigits(cursor, 8, 'U', at);
            if (codePoint > 0x10FFFF) cursor.fail(at, "illegal Unicode character in \\U escape");
            appendUtf8(out, codePoint);
            return;
        }
        case 'N':
            cursor.fail(at, "unsupported syntax: '\\N{...}' escape (named Unicode escapes are not in the cwb subset)");
        default: break;
    }
    if (c >= '0' && c <= '7') {
        uint32_t value = 0;
        for (int i = 0; i < 3 && cursor.peek() >= '0' && cursor.peek() <= '7'; ++i)
            value = value * 8 + static_cast<uint32_t>(cursor.advance() - '0');
        appendUtf8(out, value);
        return;
    }
    out += '\\';
}

FStringPiece literalPiece(std::string text) {
    FStringPiece piece;
    piece.literal = std::move(text);
    return piece;
}

bool atClosingQuote(const LexCursor& cursor, const LiteralStyle& style) {
    if (cursor.peek() != style.quote) return false;
    return !style.triple || (cursor.peek(1) == style.quote && cursor.peek(2) == style.quote);
}

void consumeClosingQuote(LexCursor& cursor, const LiteralStyle& style) {
    for (int i = 0; i < (style.triple ? 3 : 1); ++i) cursor.advance();
}

[[noreturn]] void failUnterminated(const LexCursor& cursor, const LiteralStyle& style) {
    std::string kind = style.formatted ? "f-string" : "string";
    cursor.fail(style.start, fmt::format("unterminated {}{} literal (detected at line {})",
                                         style.triple ? "triple-quoted " : "", kind, cursor.pos().line));
}

/// One character of literal text (outside replacement fields), decoding escapes unless raw.
void takeLiteralChar(LexCursor& cursor, const LiteralStyle& style, std::string& out) {
    if (cursor.peek() != '\\') {
        out += cursor.advance();
        return;
    }
    if (!style.raw) {
        decodeEscape(cursor, out);
        return;
    }
    // A raw string keeps its backslashes, but one still stops a quote or a backslash from ending things.
    out += cursor.advance();
    char next = cursor.peek();
    if (!cursor.atEnd() && (next == style.quote || next == '\\' || next == '\n')) out += cursor.advance();
}

std::vector<FStringPiece> scanFStringBody(LexCursor& cursor, const LiteralStyle& style);
FStringPiece scanField(LexCursor& cursor, const LiteralStyle& style);

/// Skips a string literal nested inside a replacement field (any quote, PEP 701), including its prefix,
/// which the caller has already passed over.
void skipNestedLiteral(LexCursor& cursor, size_t fieldBegin, SourcePos at) {
    size_t prefixBegin = cursor.offset();
    while (prefixBegin > fieldBegin && isIdentifierChar(cursor.slice(prefixBegin - 1, prefixBegin)[0])) --prefixBegin;
    std::string_view prefix = cursor.slice(prefixBegin, cursor.offset());
    if (!isStringPrefix(prefix)) prefix = {};
    Token nested;
    lexStringLiteral(cursor, prefix, at, nested);
}

void scanFormatSpec(LexCursor& cursor, const LiteralStyle& style, std::vector<FStringPiece>& pieces) {
    std::string literal;
    auto flush = [&] {
        if (literal.empty()) return;
        pieces.push_back(literalPiece(std::move(literal)));
        literal.clear();
    };
    while (true) {
        if (cursor.atEnd()) failUnterminated(cursor, style);
        char c = cursor.peek();
        if (c == '}') break;
        if (atClosingQuote(cursor, style) || (c == '\n' && !style.triple))
            cursor.fail(cursor.pos(), "f-string: expecting '}'");
        if (c == '{') {
            flush();
            cursor.advance();
            pieces.push_back(scanField(cursor, style));
        } else {
            takeLiteralChar(cursor, style, literal);
        }
    }
    flush();
}

/// A replacement field; the cursor is just after its '{'.
FStringPiece scanField(LexCursor& cursor, const LiteralStyle& style) {
    FStringPiece field;
    field.isField = true;
    field.exprBegin = cursor.offset();
    field.exprPos = cursor.pos();
    int depth = 0;
    char terminator = 0;
    while (terminator == 0) {
        if (cursor.atEnd()) failUnterminated(cursor, style);
        char c = cursor.peek();
        char previous = cursor.offset() > field.exprBegin ? cursor.slice(cursor.offset() - 1, cursor.offset())[0] : 0;
        if (c == '\n' && !style.triple) failUnterminated(cursor, style);
        if (c == '\'' || c == '"') {
            // The enclosing string's own quote usually means a missing '}', unless it starts a whole nested
            // literal (PEP 701); say the former when the latter does not work out.
            SourcePos quoteAt = cursor.pos();
            if (!atClosingQuote(cursor, style)) {
                skipNestedLiteral(cursor, field.exprBegin, quoteAt);
            } else {
                try {
                    skipNestedLiteral(cursor, field.exprBegin, quoteAt);
                } catch (const FrontendError&) {
                    cursor.fail(quoteAt, "f-string: expecting '}'");
                }
            }
            continue;
        }
        if (c == '#') cursor.fail(cursor.pos(), "f-string expression part cannot include '#'");
        if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || (c == '}' && depth > 0)) {
            if (depth == 0) cursor.fail(cursor.pos(), fmt::format("f-string: unmatched '{}'", c));
            --depth;
        } else if (depth == 0) {
            bool isDebug = c == '=' && cursor.peek(1) != '=' && previous != '=' && previous != '!' && previous != '<' &&
                           previous != '>';
            if (c == '}' || c == ':' || (c == '!' && cursor.peek(1) != '=') || isDebug) {
                terminator = c;
                break;
            }
        }
        cursor.advance();
    }
    field.exprEnd = cursor.offset();
    std::string_view expression = cursor.slice(field.exprBegin, field.exprEnd);
    if (std::all_of(expression.begin(), expression.end(),
                    [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
        cursor.fail(cursor.pos(), fmt::format("f-string: valid expression required before '{}'", terminator));
    if (terminator == '=') {
        cursor.advance();
        while (cursor.peek() == ' ' || cursor.peek() == '\t' || (style.triple && cursor.peek() == '\n'))
            cursor.advance();
        field.debugText = std::string(cursor.slice(field.exprBegin, cursor.offset()));
    }
    if (cursor.peek() == '!') {
        cursor.advance();
        char conversion = cursor.peek();
        if (conversion != 's' && conversion != 'r' && conversion != 'a')
            cursor.fail(cursor.pos(), "f-string: invalid conversion character: expected 's', 'r', or 'a'");
        field.conversion = cursor.advance();
    }
    if (cursor.peek() == ':') {
        cursor.advance();
        field.hasFormatSpec = true;
        scanFormatSpec(cursor, style, field.formatSpec);
    }
    if (cursor.peek() != '}') cursor.fail(cursor.pos(), "f-string: expecting '}'");
    cursor.advance();
    return field;
}

std::vector<FStringPiece> scanFStringBody(LexCursor& cursor, const LiteralStyle& style) {
    std::vector<FStringPiece> pieces;
    std::string literal;
    auto flush = [&] {
        if (literal.empty()) return;
        pieces.push_back(literalPiece(std::move(literal)));
        literal.clear();
    };
    while (!atClosingQuote(cursor, style)) {
        if (cursor.atEnd() || (cursor.peek() == '\n' && !style.triple)) failUnterminated(cursor, style);
        char c = cursor.peek();
        if ((c == '{' || c == '}') && cursor.peek(1) == c) {
            literal += c;
            cursor.advance();
            cursor.advance();
        } else if (c == '{') {
            flush();
            cursor.advance();
            pieces.push_back(scanField(cursor, style));
        } else if (c == '}') {
            cursor.fail(cursor.pos(), "f-string: single '}' is not allowed");
        } else {
            takeLiteralChar(cursor, style, literal);
        }
    }
    flush();
    consumeClosingQuote(cursor, style);
    return pieces;
}

std::string scanPlainBody(LexCursor& cursor, const LiteralStyle& style) {
    std::string value;
    while (!atClosingQuote(cursor, style)) {
        if (cursor.atEnd() || (cursor.peek() == '\n' && !style.triple)) failUnterminated(cursor, style);
        takeLiteralChar(cursor, style, value);
    }
    consumeClosingQuote(cursor, style);
    return value;
}

}  // namespace

bool isStringPrefix(std::string_view word) {
    if (word.empty() || word.size() > 2) return false;
    std::string lower;
    for (char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static constexpr std::string_view kPrefixes[] = {"r", "u", "f", "b", "br", "rb", "fr", "rf"};
    return std::find(std::begin(kPrefixes), std::end(kPrefixes), lower) != std::end(kPrefixes);
}

void lexStringLiteral(LexCursor& cursor, std::string_view prefix, SourcePos start, Token& token) {
    LiteralStyle style;
    style.start = start;
    for (char c : prefix) {
        char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == 'b') cursor.fail(start, "unsupported syntax: bytes literal (bytes are not in the cwb subset)");
        style.raw |= lower == 'r';
        style.formatted |= lower == 'f';
    }
    style.quote = cursor.peek();
    style.triple = cursor.peek(1) == style.quote && cursor.peek(2) == style.quote;
    for (int i = 0; i < (style.triple ? 3 : 1); ++i) cursor.advance();
    if (style.formatted) {
        token.kind = TokenKind::FString;
        token.fstring = std::make_shared<const std::vector<FStringPiece>>(scanFStringBody(cursor, style));
    } else {
        token.kind = TokenKind::String;
        token.text = scanPlainBody(cursor, style);
    }
}

}  // namespace eng::frontend
