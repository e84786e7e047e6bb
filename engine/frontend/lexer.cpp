// The lexer proper: indentation, brackets, names, numbers and operators. String bodies are scanned by
// string_literal.cpp.
#include "frontend/lexer.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "frontend/lex_cursor.h"
#include "frontend/string_literal.h"

namespace eng::frontend {

namespace {

// Python's tab rule: a tab advances to the next multiple of 8. The second measure (tabs as one column) finds
// lines whose meaning would depend on the tab size, which Python rejects.
constexpr int kTabSize = 8;

struct OpenBracket {
    char symbol;
    SourcePos pos;
};

class Lexer {
public:
    Lexer(const SourceFile& file, size_t begin, size_t end, SourcePos pos, bool fieldMode)
        : cursor_(file, begin, end, pos), fieldMode_(fieldMode) {}

    std::vector<Token> run();

private:
    void handleLineStart();
    void lexToken();
    void lexName();
    void lexNumber();
    void lexOperator();
    void closeBracket(char symbol, SourcePos at);
    void push(TokenKind kind, SourcePos begin, std::string text = {});
    void pushStructural(TokenKind kind, SourcePos at);
    [[noreturn]] void fail(SourcePos at, std::string message) const { cursor_.fail(at, std::move(message)); }

    LexCursor cursor_;
    bool fieldMode_;
    std::vector<Token> tokens_;
    std::vector<OpenBracket> brackets_;
    std::vector<std::pair<int, int>> indents_{{0, 0}};  // (columns with tab size 8, columns with tab size 1)
    bool atLineStart_ = true;
    bool lineHasTokens_ = false;
    SourcePos lastTokenEnd_;
};

std::vector<Token> Lexer::run() {
    while (true) {
        if (atLineStart_ && !fieldMode_) handleLineStart();
        atLineStart_ = false;
        // Inside an f-string field, as inside brackets, line breaks are only white space.
        auto isSpace = [&](char ch) { return ch == ' ' || ch == '\t' || ch == '\f' || (fieldMode_ && ch == '\n'); };
        while (isSpace(cursor_.peek())) cursor_.advance();
        if (cursor_.atEnd()) break;
        char c = cursor_.peek();
        if (c == '#') {
            while (!cursor_.atEnd() && cursor_.peek() != '\n') cursor_.advance();
        } else if (c == '\\') {
            SourcePos at = cursor_.pos();
            cursor_.advance();
            if (cursor_.peek() != '\n') fail(at, "unexpected character after line continuation character");
            cursor_.advance();
            if (cursor_.atEnd()) fail(at, "unexpected end of file after line continuation character");
        } else if (c == '\n') {
            SourcePos at = cursor_.pos();
            cursor_.advance();
            if (brackets_.empty()) {
                if (lineHasTokens_)
                    pushStructural(TokenKind::Newline, lastTokenEnd_.line == at.line ? lastTokenEnd_ : at);
                atLineStart_ = true;
            }
        } else {
            lexToken();
        }
    }
    if (!brackets_.empty()) fail(brackets_.back().pos, fmt::format("'{}' was never closed", brackets_.back().symbol));
    if (!fieldMode_) {
        if (lineHasTokens_) pushStructural(TokenKind::Newline, lastTokenEnd_);
        for (size_t i = 1; i < indents_.size(); ++i) pushStructural(TokenKind::Dedent, cursor_.pos());
    }
    pushStructural(TokenKind::EndOfFile, cursor_.pos());
    return std::move(tokens_);
}

/// Measures the indentation of a new line and emits INDENT/DEDENT; blank and comment-only lines do not count.
void Lexer::handleLineStart() {
    int columns = 0;
    int altColumns = 0;
    // CPython's rule for backslashes in the indentation: the column of the first one sets the line's
    // indentation, unless it is at column 0, in which case counting goes on into the next physical line.
    int continuationColumns = 0;
    int continuationAltColumns = 0;
    while (true) {
        char c = cursor_.peek();
        if (c == ' ') {
            ++columns;
            ++altColumns;
        } else if (c == '\t') {
            columns = (columns / kTabSize + 1) * kTabSize;
            ++altColumns;
        } else if (c == '\f') {
            columns = altColumns = 0;
        } else if (c == '\\' && cursor_.peek(1) == '\n') {
            if (continuationColumns == 0) {
                continuationColumns = columns;
                continuationAltColumns = altColumns;
            }
            cursor_.advance();
        } else {
            break;
        }
        cursor_.advance();
    }
    char c = cursor_.peek();
    if (cursor_.atEnd() || c == '#' || c == '\n') return;
    if (continuationColumns != 0) {
        columns = continuationColumns;
        altColumns = continuationAltColumns;
    }
    SourcePos at = cursor_.pos();
    auto [current, currentAlt] = indents_.back();
    if (columns == current) {
        if (altColumns != currentAlt) fail(at, "inconsistent use of tabs and spaces in indentation");
    } else if (columns > current) {
        if (altColumns <= currentAlt) fail(at, "inconsistent use of tabs and spaces in indentation");
        indents_.emplace_back(columns, altColumns);
        pushStructural(TokenKind::Indent, at);
    } else {
        while (indents_.size() > 1 && columns < indents_.back().first) {
            indents_.pop_back();
            pushStructural(TokenKind::Dedent, at);
        }
        if (columns != indents_.back().first) fail(at, "unindent does not match any outer indentation level");
        if (altColumns != indents_.back().second) fail(at, "inconsistent use of tabs and spaces in indentation");
    }
}

void Lexer::lexToken() {
    char c = cursor_.peek();
    if (isIdentifierStart(c)) {
        lexName();
    } else if (isDigit(c) || (c == '.' && isDigit(cursor_.peek(1)))) {
        lexNumber();
    } else if (c == '\'' || c == '"') {
        Token token;
        SourcePos begin = cursor_.pos();
        lexStringLiteral(cursor_, {}, begin, token);
        token.range = {begin, cursor_.pos()};
        lastTokenEnd_ = cursor_.pos();
        lineHasTokens_ = true;
        tokens_.push_back(std::move(token));
    } else {
        lexOperator();
    }
}

void Lexer::lexName() {
    SourcePos begin = cursor_.pos();
    size_t start = cursor_.offset();
    while (isIdentifierChar(cursor_.peek())) cursor_.advance();
    std::string_view word = cursor_.slice(start, cursor_.offset());
    if ((cursor_.peek() == '\'' || cursor_.peek() == '"') && isStringPrefix(word)) {
        Token token;
        lexStringLiteral(cursor_, word, begin, token);
        token.range = {begin, cursor_.pos()};
        lastTokenEnd_ = cursor_.pos();
        lineHasTokens_ = true;
        tokens_.push_back(std::move(token));
        return;
    }
    push(keywordKind(word), begin, std::string(word));
}

void Lexer::lexNumber() {
    SourcePos begin = cursor_.pos();
    size_t start = cursor_.offset();
    std::string digits;  // the spelling without underscores
    bool isFloat = false;
    auto invalid = [&](std::string_view what) { fail(begin, fmt::format("invalid {} literal", what)); };
    // Digits of one base with single underscores between them (Python allows one right after a base prefix).
    auto readDigits = [&](auto isValid, bool allowLeadingUnderscore) {
        bool any = false;
        bool lastUnderscore = false;
        while (true) {
            char c = cursor_.peek();
            if (c == '_') {
                if (lastUnderscore || (!any && !allowLeadingUnderscore)) return false;
                lastUnderscore = true;
            } else if (isValid(c)) {
                digits += c;
                any = true;
                lastUnderscore = false;
            } else {
                break;
            }
            cursor_.advance();
        }
        return any && !lastUnderscore;
    };
    auto decimal = [](char c) { return isDigit(c); };
    int base = 10;
    char second = static_cast<char>(cursor_.peek(1) | 0x20);
    if (cursor_.peek() == '0' && (second == 'x' || second == 'o' || second == 'b')) {
        base = second == 'x' ? 16 : second == 'o' ? 8 : 2;
        cursor_.advance();
        cursor_.advance();
        bool ok = base == 16
                      ? readDigits([](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }, true)
                  : base == 8 ? readDigits([](char c) { return c >= '0' && c <= '7'; }, true)
                              : readDigits([](char c) { return c == '0' || c == '1'; }, true);
        if (!ok) invalid(base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
    } else {
        if (cursor_.peek() != '.' && !readDigits(decimal, false)) invalid("decimal");
        if (cursor_.peek() == '.') {
            isFloat = true;
            digits += cursor_.advance();
            if (isDigit(cursor_.peek()) && !readDigits(decimal, false)) invalid("decimal");
        }
        char e = cursor_.peek();
        char afterE = cursor_.peek(1);
        if ((e == 'e' || e == 'E') &&
            (isDigit(afterE) || ((afterE == '+' || afterE == '-') && isDigit(cursor_.peek(2))))) {
            isFloat = true;
            digits += cursor_.advance();
            if (cursor_.peek() == '+' || cursor_.peek() == '-') digits += cursor_.advance();
            if (!readDigits(decimal, false)) invalid("decimal");
        }
    }
    if (cursor_.peek() == 'j' || cursor_.peek() == 'J')
        fail(begin, "unsupported syntax: imaginary number (complex numbers are not in the cwb subset)");
    // Like CPython, a number may run into one of these keywords (`1if x else 2`), which it only warns about.
    static constexpr std::string_view kKeywordsAfterNumbers[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
    bool keywordFollows = std::any_of(std::begin(kKeywordsAfterNumbers), std::end(kKeywordsAfterNumbers),
                                      [&](std::string_view keyword) { return cursor_.startsWith(keyword); });
    if (isIdentifierChar(cursor_.peek()) && !keywordFollows)
        invalid(base == 16 ? "hexadecimal" : base == 8 ? "octal" : base == 2 ? "binary" : "decimal");
    std::string spelling(cursor_.slice(start, cursor_.offset()));
    Token token;
    token.range = {begin, cursor_.pos()};
    token.text = spelling;
    if (isFloat) {
        token.kind = TokenKind::Float;
        auto result = std::from_chars(digits.data(), digits.data() + digits.size(), token.floatValue);
        // from_chars leaves the value alone when out of range; strtod gives Python's inf or 0.0 there.
        if (result.ec == std::errc::result_out_of_range) token.floatValue = std::strtod(digits.c_str(), nullptr);
    } else {
        token.kind = TokenKind::Integer;
        if (base == 10 && digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
            fail(begin,
                 "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
        uint64_t value = 0;
        auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
        if (result.ec == std::errc::result_out_of_range ||
            value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fail(begin, "integer literal too large: the cwb subset has 64-bit integers (at most 2**63 - 1)");
        token.intValue = static_cast<int64_t>(value);
    }
    lastTokenEnd_ = cursor_.pos();
    lineHasTokens_ = true;
    tokens_.push_back(std::move(token));
}

void Lexer::lexOperator() {
    SourcePos begin = cursor_.pos();
    // Longest match over the operator spellings of the token table.
    TokenKind best = TokenKind::EndOfFile;
    size_t bestLength = 0;
    for (auto kind = static_cast<int>(TokenKind::LeftParen); kind <= static_cast<int>(TokenKind::RightShiftEqual);
         ++kind) {
        std::string_view spelling = tokenKindSpelling(static_cast<TokenKind>(kind));
        if (spelling.size() > bestLength && cursor_.startsWith(spelling)) {
            best = static_cast<TokenKind>(kind);
            bestLength = spelling.size();
        }
    }
    if (bestLength == 0) {
        size_t start = cursor_.offset();
        cursor_.advance();
        while ((static_cast<unsigned char>(cursor_.peek()) & 0xC0) == 0x80) cursor_.advance();
        std::string_view character = cursor_.slice(start, cursor_.offset());
        fail(begin, fmt::format("invalid character '{}'", character));
    }
    char first = cursor_.peek();
    for (size_t i = 0; i < bestLength; ++i) cursor_.advance();
    if (first == '(' || first == '[' || first == '{') {
        brackets_.push_back(OpenBracket{first, begin});
    } else if (first == ')' || first == ']' || first == '}') {
        closeBracket(first, begin);
    }
    push(best, begin);
}

void Lexer::closeBracket(char symbol, SourcePos at) {
    if (brackets_.empty()) {
        if (fieldMode_) return;  // the f-string scanner already matched the field's brackets
        fail(at, fmt::format("unmatched '{}'", symbol));
    }
    OpenBracket open = brackets_.back();
    char expected = open.symbol == '(' ? ')' : open.symbol == '[' ? ']' : '}';
    if (symbol != expected) {
        std::string where = open.pos.line == at.line ? "" : fmt::format(" on line {}", open.pos.line);
        fail(at, fmt::format("closing parenthesis '{}' does not match opening parenthesis '{}'{}", symbol, open.symbol,
                             where));
    }
    brackets_.pop_back();
}

void Lexer::push(TokenKind kind, SourcePos begin, std::string text) {
    Token token;
    token.kind = kind;
    token.range = {begin, cursor_.pos()};
    token.text = std::move(text);
    lastTokenEnd_ = cursor_.pos();
    lineHasTokens_ = true;
    tokens_.push_back(std::move(token));
}

void Lexer::pushStructural(TokenKind kind, SourcePos at) {
    Token token;
    token.kind = kind;
    token.range = {at, at};
    tokens_.push_back(std::move(token));
    if (kind == TokenKind::Newline) lineHasTokens_ = false;
}

}  // namespace

Expected<std::vector<Token>> tokenize(const SourceFile& file) {
    return catchFrontendError<std::vector<Token>>([&] {
        return Lexer(file, 0, file.text().size(), SourcePos{1, 1}, false).run();
    });
}

std::vector<Token> tokenizeFieldExpression(const SourceFile& file, size_t begin, size_t end, SourcePos pos) {
    return Lexer(file, begin, end, pos, true).run();
}

}  // namespace eng::frontend
