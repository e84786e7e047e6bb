// Lexer: indentation, line joining, comments, every string form, f-string pieces, numbers, and lexical errors.
#include <gtest/gtest.h>

#include "python/python_repr.h"
#include "frontend_test_support.h"

using namespace eng::frontend;

namespace {

std::string tokenText(const Token& token) {
    switch (token.kind) {
        case TokenKind::EndOfFile: return "EOF";
        case TokenKind::Newline: return "NL";
        case TokenKind::Indent: return "INDENT";
        case TokenKind::Dedent: return "DEDENT";
        case TokenKind::Name: return token.text;
        case TokenKind::Integer: return "int:" + std::to_string(token.intValue);
        case TokenKind::Float: return "float:" + eng::python::floatRepr(token.floatValue);
        case TokenKind::String: return "str:" + eng::python::stringRepr(token.text);
        case TokenKind::FString: return "fstr";
        default: return std::string(tokenKindSpelling(token.kind));
    }
}

std::string lex(const std::string& source) {
    SourceFile file("t.py", source);
    auto tokens = tokenize(file);
    if (!tokens) return "error: " + tokens.error().render();
    std::string out;
    for (const Token& token : *tokens) out += (out.empty() ? "" : " ") + tokenText(token);
    return out;
}

std::vector<Token> tokensOf(const std::string& source) {
    SourceFile file("t.py", source);
    auto tokens = tokenize(file);
    EXPECT_TRUE(tokens.hasValue()) << (tokens ? "" : tokens.error().render());
    return tokens ? *tokens : std::vector<Token>{};
}

}  // namespace

TEST(Lexer, IndentationProducesIndentAndDedent) {
    EXPECT_EQ(lex("if x:\n    y = 1\n    if z:\n        w\nv\n"),
              "if x : NL INDENT y = int:1 NL if z : NL INDENT w NL DEDENT DEDENT v NL EOF");
}

TEST(Lexer, BlankAndCommentLinesDoNotAffectIndentation) {
    EXPECT_EQ(lex("def f():\n\n    # comment\n  # odd comment\n    return 1  # trailing\n"),
              "def f ( ) : NL INDENT return int:1 NL DEDENT EOF");
}

TEST(Lexer, MissingFinalNewlineStillEndsTheLine) {
    EXPECT_EQ(lex("x = 1"), "x = int:1 NL EOF");
    EXPECT_EQ(lex("if a:\n  b"), "if a : NL INDENT b NL DEDENT EOF");
    EXPECT_EQ(lex(""), "EOF");
    EXPECT_EQ(lex("# only a comment\n\n"), "EOF");
}

TEST(Lexer, CarriageReturnLineEndings) {
    EXPECT_EQ(lex("x = 1\r\nif x:\r\n  y\r"), "x = int:1 NL if x : NL INDENT y NL DEDENT EOF");
}

TEST(Lexer, BracketsJoinLines) {
    EXPECT_EQ(lex("f(a,\n      b,  # comment\n  c)\nd\n"), "f ( a , b , c ) NL d NL EOF");
    EXPECT_EQ(lex("x = [\n1,\n]\n"), "x = [ int:1 , ] NL EOF");
}

TEST(Lexer, BackslashContinuation) {
    EXPECT_EQ(lex("x = 1 + \\\n    2\ny\n"), "x = int:1 + int:2 NL y NL EOF");
    // CPython's rule: a backslash in the indentation sets the line's indentation at its column, except at column
    // 0, where counting continues on the next physical line.
    EXPECT_EQ(lex("if a:\n\\\n    b\n"), "if a : NL INDENT b NL DEDENT EOF");
    EXPECT_EQ(lex("if a:\n    b\n  \\\n    c\n"),
              "error: t.py:4:5: error: unindent does not match any outer indentation level\n    c\n    ^\n");
}

TEST(Lexer, TabIndentation) {
    EXPECT_EQ(lex("if a:\n\tb\n\tif c:\n\t\td\n\te\n"),
              "if a : NL INDENT b NL if c : NL INDENT d NL DEDENT e NL DEDENT EOF");
}

TEST(Lexer, OperatorsUseLongestMatch) {
    EXPECT_EQ(lex("a **= b // c ** d >>= e -> f != g ... h @= i <<j\n"),
              "a **= b // c ** d >>= e -> f != g ... h @= i << j NL EOF");
    EXPECT_EQ(lex("x.y[1:2]\n"), "x . y [ int:1 : int:2 ] NL EOF");
}

TEST(Lexer, KeywordsAreTokensAndSoftKeywordsAreNames) {
    auto tokens = tokensOf("not in is lambda match type case\n");
    EXPECT_EQ(tokens[0].kind, TokenKind::KeywordNot);
    EXPECT_EQ(tokens[1].kind, TokenKind::KeywordIn);
    EXPECT_EQ(tokens[2].kind, TokenKind::KeywordIs);
    EXPECT_EQ(tokens[3].kind, TokenKind::KeywordLambda);
    EXPECT_EQ(tokens[4].kind, TokenKind::Name);
    EXPECT_EQ(tokens[5].kind, TokenKind::Name);
    EXPECT_EQ(tokens[6].kind, TokenKind::Name);
}

TEST(Lexer, Numbers) {
    EXPECT_EQ(lex("0 7 1_000 0x1F 0o17 0b101 0X_ff 00\n"),
              "int:0 int:7 int:1000 int:31 int:15 int:5 int:255 int:0 NL EOF");
    EXPECT_EQ(lex("1.5 .5 5. 1e3 1E-3 2.5e+2 1_0.0_1 9223372036854775807\n"),
              "float:1.5 float:0.5 float:5.0 float:1000.0 float:0.001 float:250.0 float:10.01 int:9223372036854775807 "
              "NL EOF");
    EXPECT_EQ(lex("1e400\n"), "float:inf NL EOF");
    // A number may run straight into one of a few keywords, as CPython allows (with a warning).
    EXPECT_EQ(lex("1if x else 2or y\n"), "int:1 if x else int:2 or y NL EOF");
}

TEST(Lexer, TokenRangesAreOneBasedCodePointColumns) {
    auto tokens = tokensOf("é = 'ü'  +  x1\n");
    ASSERT_GE(tokens.size(), 5u);
    EXPECT_EQ(tokens[0].range, (SourceRange{{1, 1}, {1, 2}}));
    EXPECT_EQ(tokens[2].range, (SourceRange{{1, 5}, {1, 8}}));
    EXPECT_EQ(tokens[4].range, (SourceRange{{1, 13}, {1, 15}}));
    EXPECT_EQ(tokens[5].kind, TokenKind::Newline);
    EXPECT_EQ(tokens[5].range.begin, (SourcePos{1, 15}));
}

TEST(Lexer, StringForms) {
    EXPECT_EQ(lex("'a' \"b\" '''c\nd''' \"\"\"e\"\"\" r'\\n' R\"\\d\" u'x' ''\n"),
              "str:'a' str:'b' str:'c\\nd' str:'e' str:'\\\\n' str:'\\\\d' str:'x' str:'' NL EOF");
}

TEST(Lexer, EscapesAreDecoded) {
    auto tokens = tokensOf(R"('\n\t\\\'\"\x41\u00e9\U0001F600\101\d' "a\
b")"
                           "\n");
    EXPECT_EQ(tokens[0].text,
              "\n\t\\'\"A\xc3\xa9\xf0\x9f\x98\x80"
              "A\\d");
    EXPECT_EQ(tokens[1].text, "ab");
}

TEST(Lexer, RawStringsKeepBackslashesButNotEndAtEscapedQuote) {
    auto tokens = tokensOf("r'a\\'b' r\"\\\\\"\n");
    EXPECT_EQ(tokens[0].text, "a\\'b");
    EXPECT_EQ(tokens[1].text, "\\\\");
}

TEST(Lexer, FStringsSplitIntoPieces) {
    auto tokens = tokensOf("f'a{{b}}{x!r:>{w}.2f} {y = }{ {1: 2}[1] }{s[\"k\"]}'\n");
    ASSERT_EQ(tokens[0].kind, TokenKind::FString);
    const auto& pieces = *tokens[0].fstring;
    ASSERT_EQ(pieces.size(), 6u);
    EXPECT_EQ(pieces[0].literal, "a{b}");
    EXPECT_TRUE(pieces[1].isField);
    EXPECT_EQ(pieces[1].conversion, 'r');
    ASSERT_TRUE(pieces[1].hasFormatSpec);
    ASSERT_EQ(pieces[1].formatSpec.size(), 3u);
    EXPECT_EQ(pieces[1].formatSpec[0].literal, ">");
    EXPECT_TRUE(pieces[1].formatSpec[1].isField);
    EXPECT_EQ(pieces[1].formatSpec[2].literal, ".2f");
    EXPECT_EQ(pieces[1].exprPos, (SourcePos{1, 10}));
    EXPECT_EQ(pieces[2].literal, " ");
    EXPECT_EQ(pieces[3].debugText, "y = ");
    EXPECT_TRUE(pieces[4].isField);  // a dict display inside a field: braces are nested, not the end
    EXPECT_TRUE(pieces[5].isField);  // PEP 701: the same quote may appear inside a field
}

TEST(Lexer, TripleQuotedFStringFieldsMaySpanLines) {
    auto tokens = tokensOf("f'''a{\nx\n}b'''\n");
    ASSERT_EQ(tokens[0].kind, TokenKind::FString);
    EXPECT_EQ(tokens[0].range, (SourceRange{{1, 1}, {3, 6}}));
    EXPECT_EQ(tokens[1].kind, TokenKind::Newline);
}

TEST(Lexer, Errors) {
    EXPECT_EQ(lex("x = 'abc\n"),
              "error: t.py:1:5: error: unterminated string literal (detected at line 1)\nx = 'abc\n    ^\n");
    EXPECT_EQ(
        lex("x = '''abc\n\n"),
        "error: t.py:1:5: error: unterminated triple-quoted string literal (detected at line 3)\nx = '''abc\n    ^\n");
    EXPECT_EQ(lex("f(a, b\n"), "error: t.py:1:2: error: '(' was never closed\nf(a, b\n ^\n");
    EXPECT_EQ(lex("x = 1)\n"), "error: t.py:1:6: error: unmatched ')'\nx = 1)\n     ^\n");
    EXPECT_EQ(
        lex("x = [1,\n2)\n"),
        "error: t.py:2:2: error: closing parenthesis ')' does not match opening parenthesis '[' on line 1\n2)\n ^\n");
    EXPECT_EQ(lex("if x:\n    a\n  b\n"),
              "error: t.py:3:3: error: unindent does not match any outer indentation level\n  b\n  ^\n");
    EXPECT_EQ(lex("x = $\n"), "error: t.py:1:5: error: invalid character '$'\nx = $\n    ^\n");
    EXPECT_EQ(lex("x = 1 \\ y\n"),
              "error: t.py:1:7: error: unexpected character after line continuation character\nx = 1 \\ y\n      ^\n");
    EXPECT_EQ(lex("x = 012\n"),
              "error: t.py:1:5: error: leading zeros in decimal integer literals are not permitted; use an 0o prefix "
              "for octal "
              "integers\nx = 012\n    ^\n");
    EXPECT_EQ(lex("x = 1__0\n"), "error: t.py:1:5: error: invalid decimal literal\nx = 1__0\n    ^\n");
    EXPECT_EQ(lex("x = 1abc\n"), "error: t.py:1:5: error: invalid decimal literal\nx = 1abc\n    ^\n");
    EXPECT_EQ(lex("x = 0x\n"), "error: t.py:1:5: error: invalid hexadecimal literal\nx = 0x\n    ^\n");
    EXPECT_EQ(
        lex("x = 9223372036854775808\n"),
        "error: t.py:1:5: error: integer literal too large: the cwb subset has 64-bit integers (at most 2**63 - 1)\n"
        "x = 9223372036854775808\n    ^\n");
    EXPECT_EQ(lex("if a:\n        b\n\tc\n"),
              "error: t.py:3:2: error: inconsistent use of tabs and spaces in indentation\n\tc\n\t^\n");
    EXPECT_EQ(lex("s = '\\x4'\n"),
              "error: t.py:1:6: error: truncated \\x escape: expected 2 hex digits\ns = '\\x4'\n     ^\n");
}

TEST(Lexer, FStringErrors) {
    EXPECT_EQ(lex("f'{}'\n"), "error: t.py:1:4: error: f-string: valid expression required before '}'\nf'{}'\n   ^\n");
    EXPECT_EQ(lex("f'a}'\n"), "error: t.py:1:4: error: f-string: single '}' is not allowed\nf'a}'\n   ^\n");
    EXPECT_EQ(lex("f'{x!z}'\n"),
              "error: t.py:1:6: error: f-string: invalid conversion character: expected 's', 'r', or 'a'\nf'{x!z}'\n   "
              "  ^\n");
    EXPECT_EQ(lex("f'{x # no}'\n"),
              "error: t.py:1:6: error: f-string expression part cannot include '#'\nf'{x # no}'\n     ^\n");
    EXPECT_EQ(lex("f'{x'\n"), "error: t.py:1:5: error: f-string: expecting '}'\nf'{x'\n    ^\n");
    EXPECT_EQ(lex("f'{x}\n"), "error: t.py:1:1: error: unterminated f-string literal (detected at line 1)\nf'{x}\n^\n");
}

TEST(Lexer, UnsupportedLiteralsAreNamed) {
    EXPECT_EQ(lex("x = b'ab'\n"),
              "error: t.py:1:5: error: unsupported syntax: bytes literal (bytes are not in the cwb subset)\nx = "
              "b'ab'\n    ^\n");
    EXPECT_EQ(
        lex("x = 1j\n"),
        "error: t.py:1:5: error: unsupported syntax: imaginary number (complex numbers are not in the cwb subset)\n"
        "x = 1j\n    ^\n");
    EXPECT_EQ(lex("x = '\\N{DASH}'\n"),
              "error: t.py:1:6: error: unsupported syntax: '\\N{...}' escape (named Unicode escapes are not in the cwb "
              "subset)\nx = '\\N{DASH}'\n     ^\n");
}
