// The recursive-descent parser shared by parser.cpp (statements) and parser_expressions.cpp (expressions).
// Internal to the front end; the public entry point is parser.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"

namespace eng::frontend {

/// What an assignment-like target is used for; it picks the error wording for invalid targets.
enum class TargetUse { Assign, AugAssign, AnnAssign, Delete, For, With, Comprehension };

class Parser {
public:
    Parser(const SourceFile& file, std::vector<Token> tokens);

    Module parseModule();
    /// The expression of an f-string replacement field (a tuple when it has commas), up to EndOfFile.
    ExprPtr parseFieldExpression();

private:
    // Where return, break and continue are allowed: a def starts a new context, a loop body deepens it.
    struct BlockContext {
        bool inFunction = false;
        int loopDepth = 0;
    };

    // ---- tokens (parser.cpp)
    const Token& peek(size_t ahead = 0) const;
    const Token& current() const { return peek(); }
    bool at(TokenKind kind) const { return current().kind == kind; }
    bool atName(std::string_view word) const { return at(TokenKind::Name) && current().text == word; }
    const Token& advance();
    bool accept(TokenKind kind);
    const Token& expect(TokenKind kind);
    SourcePos startPos() const { return current().range.begin; }
    SourcePos previousEnd() const;
    SourceRange rangeFrom(SourcePos begin) const { return SourceRange{begin, previousEnd()}; }
    [[noreturn]] void fail(SourcePos at, std::string message) const;
    [[noreturn]] void failUnsupported(SourcePos at, std::string_view what, std::string_view why) const;
    [[noreturn]] void failExpected(std::string_view what) const;
    std::string describeCurrent() const;

    // ---- statements (parser.cpp)
    void parseStatement(StmtList& out);
    void parseSimpleStatements(StmtList& out);
    StmtPtr parseSimpleStatement();
    StmtPtr parseExpressionStatement();
    StmtList parseBlock(std::string_view owner, int ownerLine);
    StmtList parseLoopBody(std::string_view owner, int ownerLine);
    StmtPtr parseIf(SourcePos begin, std::string_view keyword);
    StmtPtr parseWhile();
    StmtPtr parseFor();
    StmtPtr parseTry();
    StmtPtr parseWith();
    bool parseParenthesizedWithItems(std::vector<WithItem>& items);
    WithItem parseWithItem();
    StmtPtr parseDecorated();
    StmtPtr parseFunctionDef(ExprList decorators);
    StmtPtr parseClassDef(ExprList decorators);
    Parameters parseParameters(TokenKind closing, bool allowAnnotations);
    StmtPtr parseImport();
    StmtPtr parseFromImport();
    std::string parseDottedName();
    void rejectSoftKeywordStatements() const;

    // ---- expressions (parser_expressions.cpp)
    ExprPtr parseExpression();
    ExprPtr parseStarExpression();
    /// Comma-separated expressions with *unpacking: a tuple when there is a comma. A lone `*x` is only let
    /// through for assignment statements, whose target checks give Python's message for it.
    ExprPtr parseStarExpressions(bool allowLoneStar = false);
    /// `yield [star-expressions]` or `yield from expression`, at the `yield` keyword.
    ExprPtr parseYieldExpression();
    /// The right-hand side of an assignment: a yield expression or star-expressions.
    ExprPtr parseAssignedValue();
    ExprPtr parseDisjunction();
    ExprPtr parseConjunction();
    ExprPtr parseInversion();
    ExprPtr parseComparison();
    ExprPtr parseBinary(int level);
    ExprPtr parseFactor();
    ExprPtr parsePower();
    ExprPtr parsePrimary();
    ExprPtr parseAtom();
    ExprPtr parseLambda();
    ExprPtr parseParenthesized();
    ExprPtr parseListDisplay();
    ExprPtr parseBraceDisplay();
    ExprPtr parseStrings();
    ExprPtr parseFStringPieces(const std::vector<FStringPiece>& pieces, SourceRange range);
    ExprPtr parseSubscriptItem();
    void parseCallArguments(CallExpr& call);
    std::vector<ComprehensionClause> parseComprehensionClauses();
    ExprPtr finishComprehension(SourcePos begin, ComprehensionKind kind, ExprPtr element, ExprPtr value);
    ExprPtr parseTargetList();

    // ---- targets (parser_expressions.cpp)
    void checkTarget(const Expr& target, TargetUse use) const;

    const SourceFile& file_;
    std::vector<Token> tokens_;
    size_t index_ = 0;
    std::vector<BlockContext> contexts_{BlockContext{}};
};

}  // namespace eng::frontend
