// Statement parsing: blocks and indentation, compound statements, simple statements and imports, plus the
// token helpers and error wording shared with parser_expressions.cpp.
#include "frontend/parser.h"

#include <fmt/core.h>

#include <algorithm>

#include "frontend/lexer.h"
#include "frontend/parser_internal.h"

namespace eng::frontend {

namespace {

bool isAugmentedAssignment(TokenKind kind) {
    return kind >= TokenKind::PlusEqual && kind <= TokenKind::RightShiftEqual;
}

BinaryOperator augmentedOperator(TokenKind kind) {
    switch (kind) {
        case TokenKind::PlusEqual: return BinaryOperator::Add;
        case TokenKind::MinusEqual: return BinaryOperator::Subtract;
        case TokenKind::StarEqual: return BinaryOperator::Multiply;
        case TokenKind::DoubleStarEqual: return BinaryOperator::Power;
        case TokenKind::SlashEqual: return BinaryOperator::TrueDivide;
        case TokenKind::DoubleSlashEqual: return BinaryOperator::FloorDivide;
        case TokenKind::PercentEqual: return BinaryOperator::Remainder;
        case TokenKind::AtEqual: return BinaryOperator::MatrixMultiply;
        case TokenKind::AmpersandEqual: return BinaryOperator::BitAnd;
        case TokenKind::PipeEqual: return BinaryOperator::BitOr;
        case TokenKind::CaretEqual: return BinaryOperator::BitXor;
        case TokenKind::LeftShiftEqual: return BinaryOperator::LeftShift;
        default: return BinaryOperator::RightShift;
    }
}

}  // namespace

Parser::Parser(const SourceFile& file, std::vector<Token> tokens) : file_(file), tokens_(std::move(tokens)) {}

// ---- tokens and errors ------------------------------------------------------------------------------------

const Token& Parser::peek(size_t ahead) const {
    return tokens_[std::min(index_ + ahead, tokens_.size() - 1)];
}

const Token& Parser::advance() {
    const Token& token = tokens_[index_];
    if (index_ + 1 < tokens_.size()) ++index_;
    return token;
}

bool Parser::accept(TokenKind kind) {
    if (!at(kind)) return false;
    advance();
    return true;
}

const Token& Parser::expect(TokenKind kind) {
    if (!at(kind)) failExpected(fmt::format("'{}'", tokenKindSpelling(kind)));
    return advance();
}

/// End of the last real token consumed: NEWLINE, INDENT and DEDENT do not extend a node's range.
SourcePos Parser::previousEnd() const {
    for (size_t i = index_; i > 0; --i) {
        TokenKind kind = tokens_[i - 1].kind;
        if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent)
            return tokens_[i - 1].range.end;
    }
    return SourcePos{};
}

void Parser::fail(SourcePos at, std::string message) const {
    throwError(file_, at, std::move(message));
}

void Parser::failUnsupported(SourcePos at, std::string_view what, std::string_view why) const {
    fail(at, fmt::format("unsupported syntax: {} ({})", what, why));
}

void Parser::failExpected(std::string_view what) const {
    if (at(TokenKind::Indent)) fail(startPos(), "unexpected indent");
    fail(startPos(), fmt::format("expected {}", what));
}

std::string Parser::describeCurrent() const {
    const Token& token = current();
    switch (token.kind) {
        case TokenKind::Name: return fmt::format("name '{}'", token.text);
        case TokenKind::Integer:
        case TokenKind::Float: return fmt::format("number '{}'", token.text);
        case TokenKind::String: return "string literal";
        case TokenKind::FString: return "f-string";
        case TokenKind::Newline: return "end of line";
        case TokenKind::EndOfFile: return "end of file";
        case TokenKind::Indent: return "indent";
        case TokenKind::Dedent: return "dedent";
        default: return fmt::format("'{}'", tokenKindSpelling(token.kind));
    }
}

// ---- module and blocks ------------------------------------------------------------------------------------

Module Parser::parseModule() {
    Module module;
    while (!at(TokenKind::EndOfFile)) parseStatement(module.body);
    module.range = SourceRange{SourcePos{1, 1}, current().range.end};
    return module;
}

void Parser::parseStatement(StmtList& out) {
    SourcePos begin = startPos();
    switch (current().kind) {
        case TokenKind::KeywordIf:
            advance();
            out.push_back(parseIf(begin, "if"));
            return;
        case TokenKind::KeywordWhile: out.push_back(parseWhile()); return;
        case TokenKind::KeywordFor: out.push_back(parseFor()); return;
        case TokenKind::KeywordTry: out.push_back(parseTry()); return;
        case TokenKind::KeywordWith: out.push_back(parseWith()); return;
        case TokenKind::KeywordDef: out.push_back(parseFunctionDef({})); return;
        case TokenKind::KeywordClass: out.push_back(parseClassDef({})); return;
        case TokenKind::At: out.push_back(parseDecorated()); return;
        case TokenKind::KeywordAsync: failUnsupported(begin, "'async'", "coroutines are not in the cwb subset");
        case TokenKind::Indent: fail(begin, "unexpected indent");
        default: parseSimpleStatements(out); return;
    }
}

void Parser::parseSimpleStatements(StmtList& out) {
    while (true) {
        out.push_back(parseSimpleStatement());
        if (!accept(TokenKind::Semicolon)) break;
        if (at(TokenKind::Newline)) break;
    }
    if (!accept(TokenKind::Newline))
        fail(startPos(),
             fmt::format("invalid syntax: expected end of line after the statement, found {}", describeCurrent()));
}

StmtList Parser::parseBlock(std::string_view owner, int ownerLine) {
    expect(TokenKind::Colon);
    StmtList body;
    if (!accept(TokenKind::Newline)) {
        parseSimpleStatements(body);
        return body;
    }
    if (!accept(TokenKind::Indent))
        fail(startPos(), fmt::format("expected an indented block after {} on line {}", owner, ownerLine));
    while (!accept(TokenKind::Dedent)) parseStatement(body);
    return body;
}

StmtList Parser::parseLoopBody(std::string_view owner, int ownerLine) {
    ++contexts_.back().loopDepth;
    StmtList body = parseBlock(owner, ownerLine);
    --contexts_.back().loopDepth;
    return body;
}

// ---- compound statements ----------------------------------------------------------------------------------

/// `if` or `elif` (already consumed), its test and block, then elif/else chains nested in orelse.
StmtPtr Parser::parseIf(SourcePos begin, std::string_view keyword) {
    IfStmt node;
    node.test = parseExpression();
    node.body = parseBlock(fmt::format("'{}' statement", keyword), begin.line);
    SourcePos elseBegin = startPos();
    if (accept(TokenKind::KeywordElif)) {
        node.orelse.push_back(parseIf(elseBegin, "elif"));
    } else if (accept(TokenKind::KeywordElse)) {
        node.orelse = parseBlock("'else' statement", elseBegin.line);
    }
    return makeStmt(rangeFrom(begin), std::move(node));
}

StmtPtr Parser::parseWhile() {
    SourcePos begin = advance().range.begin;
    WhileStmt node;
    node.test = parseExpression();
    node.body = parseLoopBody("'while' statement", begin.line);
    SourcePos elseBegin = startPos();
    if (accept(TokenKind::KeywordElse)) node.orelse = parseBlock("'else' statement", elseBegin.line);
    return makeStmt(rangeFrom(begin), std::move(node));
}

StmtPtr Parser::parseFor() {
    SourcePos begin = advance().range.begin;
    ForStmt node;
    node.target = parseTargetList();
    checkTarget(*node.target, TargetUse::For);
    expect(TokenKind::KeywordIn);
    node.iter = parseStarExpressions();
    node.body = parseLoopBody("'for' statement", begin.line);
    SourcePos elseBegin = startPos();
    if (accept(TokenKind::KeywordElse)) node.orelse = parseBlock("'else' statement", elseBegin.line);
    return makeStmt(rangeFrom(begin), std::move(node));
}

StmtPtr Parser::parseTry() {
    SourcePos begin = advance().range.begin;
    TryStmt node;
    node.body = parseBlock("'try' statement", begin.line);
    while (at(TokenKind::KeywordExcept)) {
        SourcePos handlerBegin = advance().range.begin;
        if (at(TokenKind::Star)) failUnsupported(startPos(), "'except*'", "exception groups are not in the cwb subset");
        if (!node.handlers.empty() && !node.handlers.back().type)
            fail(node.handlers.back().range.begin, "default 'except:' must be last");
        ExceptHandler handler;
        if (!at(TokenKind::Colon)) {
            handler.type = parseExpression();
            if (at(TokenKind::Comma)) fail(handler.type->range.begin, "multiple exception types must be parenthesized");
            if (accept(TokenKind::KeywordAs)) handler.name = expect(TokenKind::Name).text;
        }
        handler.body = parseBlock("'except' statement", handlerBegin.line);
        handler.range = rangeFrom(handlerBegin);
        node.handlers.push_back(std::move(handler));
    }
    SourcePos elseBegin = startPos();
    if (accept(TokenKind::KeywordElse)) {
        if (node.handlers.empty()) fail(elseBegin, "expected 'except' or 'finally' block");
        node.orelse = parseBlock("'else' statement", elseBegin.line);
    }
    SourcePos finallyBegin = startPos();
    if (accept(TokenKind::KeywordFinally)) node.finalbody = parseBlock("'finally' statement", finallyBegin.line);
    if (node.handlers.empty() && node.finalbody.empty()) failExpected("'except' or 'finally' block");
    return makeStmt(rangeFrom(begin), std::move(node));
}

WithItem Parser::parseWithItem() {
    WithItem item;
    item.context = parseExpression();
    if (accept(TokenKind::KeywordAs)) {
        item.target = parsePrimary();
        checkTarget(*item.target, TargetUse::With);
    }
    return item;
}

/// Python 3.10's `with (a as x, b as y):`. Tried first, with backtracking, because `with (a, b):` and
/// `with (a) as x:` read the same up to the closing parenthesis.
bool Parser::parseParenthesizedWithItems(std::vector<WithItem>& items) {
    size_t saved = index_;
    try {
        expect(TokenKind::LeftParen);
        std::vector<WithItem> parsed;
        while (!at(TokenKind::RightParen)) {
            parsed.push_back(parseWithItem());
            if (!accept(TokenKind::Comma)) break;
        }
        expect(TokenKind::RightParen);
        if (parsed.empty() || !at(TokenKind::Colon)) {
            index_ = saved;
            return false;
        }
        items = std::move(parsed);
        return true;
    } catch (const FrontendError&) {
        index_ = saved;
        return false;
    }
}

StmtPtr Parser::parseWith() {
    SourcePos begin = advance().range.begin;
    WithStmt node;
    if (!at(TokenKind::LeftParen) || !parseParenthesizedWithItems(node.items)) {
        do {
            node.items.push_back(parseWithItem());
        } while (accept(TokenKind::Comma));
    }
    node.body = parseBlock("'with' statement", begin.line);
    return makeStmt(rangeFrom(begin), std::move(node));
}

StmtPtr Parser::parseDecorated() {
    ExprList decorators;
    while (accept(TokenKind::At)) {
        decorators.push_back(parseExpression());
        expect(TokenKind::Newline);
    }
    if (at(TokenKind::KeywordDef)) return parseFunctionDef(std::move(decorators));
    if (at(TokenKind::KeywordClass)) return parseClassDef(std::move(decorators));
    if (at(TokenKind::KeywordAsync)) failUnsupported(startPos(), "'async'", "coroutines are not in the cwb subset");
    failExpected("'def' or 'class' after a decorator");
}

/// As in CPython's ast, a decorated definition starts at `def`; its decorators keep their own ranges.
StmtPtr Parser::parseFunctionDef(ExprList decorators) {
    SourcePos begin = advance().range.begin;
    int line = begin.line;
    FunctionDefStmt node;
    node.name = expect(TokenKind::Name).text;
    node.decorators = std::move(decorators);
    if (at(TokenKind::LeftBracket))
        failUnsupported(startPos(), "type parameters", "generics are not in the cwb subset");
    expect(TokenKind::LeftParen);
    node.params = parseParameters(TokenKind::RightParen, true);
    expect(TokenKind::RightParen);
    if (accept(TokenKind::Arrow)) node.returns = parseExpression();
    contexts_.push_back(BlockContext{true, 0});
    node.body = parseBlock("function definition", line);
    contexts_.pop_back();
    return makeStmt(rangeFrom(begin), std::move(node));
}

StmtPtr Parser::parseClassDef(ExprList decorators) {
    SourcePos begin = advance().range.begin;
    int line = begin.line;
    ClassDefStmt node;
    node.name = expect(TokenKind::Name).text;
    node.decorators = std::move(decorators);
    if (at(TokenKind::LeftBracket))
        failUnsupported(startPos(), "type parameters", "generics are not in the cwb subset");
    if (at(TokenKind::LeftParen)) {
        CallExpr header;
        parseCallArguments(header);
        for (Keyword& keyword : header.keywords) {
            if (keyword.name != "metaclass" || node.metaclass)
                failUnsupported(keyword.range.begin, "class keyword arguments",
                                "`metaclass=` is the only class keyword in the cwb subset");
            node.metaclass = std::move(keyword.value);
        }
        for (ExprPtr& base : header.args) {
            if (base->is<StarredExpr>())
                failUnsupported(base->range.begin, "starred base class", "a class names its bases one by one in the cwb subset");
            node.bases.push_back(std::move(base));
        }
    }
    contexts_.push_back(BlockContext{false, 0});
    node.body = parseBlock("class definition", line);
    contexts_.pop_back();
    return makeStmt(rangeFrom(begin), std::move(node));
}

/// Parameters up to (not including) `closing`: `)` for def, `:` for lambda.
Parameters Parser::parseParameters(TokenKind closing, bool allowAnnotations) {
    Parameters params;
    bool sawStar = false;
    bool sawDefault = false;
    SourcePos bareStar{};
    auto parseOne = [&] {
        const Token& name = expect(TokenKind::Name);
        Parameter parameter{name.text, nullptr, name.range};
        if (allowAnnotations && accept(TokenKind::Colon)) parameter.annotation = parseExpression();
        return parameter;
    };
    while (!at(closing)) {
        SourcePos here = startPos();
        if (accept(TokenKind::Slash)) {
            if (sawStar) fail(here, "/ must be ahead of *");
            if (!params.positionalOnly.empty()) fail(here, "/ may appear only once");
            if (params.positional.empty()) fail(here, "at least one argument must precede /");
            params.positionalOnly = std::move(params.positional);
            params.positional.clear();
        } else if (accept(TokenKind::Star)) {
            if (sawStar) fail(here, "* argument may appear only once");
            sawStar = true;
            if (at(TokenKind::Comma) || at(closing)) {
                bareStar = here;
            } else {
                params.varArgs = parseOne();
            }
        } else if (accept(TokenKind::DoubleStar)) {
            params.varKeywords = parseOne();
            accept(TokenKind::Comma);
            if (!at(closing)) fail(startPos(), "arguments cannot follow var-keyword argument");
            break;
        } else {
            Parameter parameter = parseOne();
            ExprPtr defaultValue = accept(TokenKind::Equal) ? parseExpression() : nullptr;
            if (sawStar) {
                params.keywordOnly.push_back(std::move(parameter));
                params.keywordOnlyDefaults.push_back(std::move(defaultValue));
            } else {
                if (defaultValue) {
                    sawDefault = true;
                    params.defaults.push_back(std::move(defaultValue));
                } else if (sawDefault) {
                    fail(parameter.range.begin, "parameter without a default follows parameter with a default");
                }
                params.positional.push_back(std::move(parameter));
            }
        }
        if (!accept(TokenKind::Comma)) break;
    }
    if (bareStar != SourcePos{} && params.keywordOnly.empty()) fail(bareStar, "named arguments must follow bare *");
    // Duplicate names are a syntax error in Python; report the second one.
    std::vector<const Parameter*> all;
    for (const auto& p : params.positionalOnly) all.push_back(&p);
    for (const auto& p : params.positional) all.push_back(&p);
    if (params.varArgs) all.push_back(&*params.varArgs);
    for (const auto& p : params.keywordOnly) all.push_back(&p);
    if (params.varKeywords) all.push_back(&*params.varKeywords);
    for (size_t i = 0; i < all.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (all[i]->name == all[j]->name)
                fail(all[i]->range.begin, fmt::format("duplicate argument '{}' in function definition", all[i]->name));
    return params;
}

// ---- simple statements ------------------------------------------------------------------------------------

/// Soft keywords: `match x:` and `type X = ...` are valid Python but not subset statements.
void Parser::rejectSoftKeywordStatements() const {
    if (atName("match")) {
        TokenKind next = peek(1).kind;
        bool looksLikeExpression = next == TokenKind::Equal || next == TokenKind::Dot || next == TokenKind::Colon ||
                                   next == TokenKind::Comma || next == TokenKind::Newline ||
                                   isAugmentedAssignment(next);
        if (looksLikeExpression) return;
        // A match statement's header ends with ':' before the end of the line; no expression statement does.
        int depth = 0;
        for (size_t i = 1; peek(i).kind != TokenKind::Newline && peek(i).kind != TokenKind::EndOfFile; ++i) {
            TokenKind kind = peek(i).kind;
            if (kind == TokenKind::LeftParen || kind == TokenKind::LeftBracket || kind == TokenKind::LeftBrace) ++depth;
            if (kind == TokenKind::RightParen || kind == TokenKind::RightBracket || kind == TokenKind::RightBrace)
                --depth;
            if (depth == 0 && kind == TokenKind::Colon && peek(i + 1).kind == TokenKind::Newline)
                failUnsupported(startPos(), "'match'", "match statements are not in the cwb subset");
        }
    }
    if (atName("type") && peek(1).kind == TokenKind::Name &&
        (peek(2).kind == TokenKind::Equal || peek(2).kind == TokenKind::LeftBracket))
        failUnsupported(startPos(), "'type' alias statement", "type aliases are not in the cwb subset");
}

StmtPtr Parser::parseSimpleStatement() {
    SourcePos begin = startPos();
    switch (current().kind) {
        case TokenKind::KeywordPass: advance(); return makeStmt(rangeFrom(begin), PassStmt{});
        case TokenKind::KeywordBreak:
            advance();
            if (contexts_.back().loopDepth == 0) fail(begin, "'break' outside loop");
            return makeStmt(rangeFrom(begin), BreakStmt{});
        case TokenKind::KeywordContinue:
            advance();
            if (contexts_.back().loopDepth == 0) fail(begin, "'continue' not properly in loop");
            return makeStmt(rangeFrom(begin), ContinueStmt{});
        case TokenKind::KeywordReturn: {
            advance();
            if (!contexts_.back().inFunction) fail(begin, "'return' outside function");
            ReturnStmt node;
            if (!at(TokenKind::Newline) && !at(TokenKind::Semicolon)) node.value = parseStarExpressions();
            return makeStmt(rangeFrom(begin), std::move(node));
        }
        case TokenKind::KeywordRaise: {
            advance();
            RaiseStmt node;
            if (!at(TokenKind::Newline) && !at(TokenKind::Semicolon)) {
                node.exception = parseExpression();
                if (accept(TokenKind::KeywordFrom)) node.cause = parseExpression();
            }
            return makeStmt(rangeFrom(begin), std::move(node));
        }
        case TokenKind::KeywordGlobal:
        case TokenKind::KeywordNonlocal: {
            bool isGlobal = advance().kind == TokenKind::KeywordGlobal;
            std::vector<std::string> names;
            do {
                names.push_back(expect(TokenKind::Name).text);
            } while (accept(TokenKind::Comma));
            if (isGlobal) return makeStmt(rangeFrom(begin), GlobalStmt{std::move(names)});
            return makeStmt(rangeFrom(begin), NonlocalStmt{std::move(names)});
        }
        case TokenKind::KeywordDel: {
            advance();
            DeleteStmt node;
            do {
                if (at(TokenKind::Newline) || at(TokenKind::Semicolon)) break;
                node.targets.push_back(parseBinary(0));
                checkTarget(*node.targets.back(), TargetUse::Delete);
            } while (accept(TokenKind::Comma));
            if (node.targets.empty()) failExpected("an expression");
            return makeStmt(rangeFrom(begin), std::move(node));
        }
        case TokenKind::KeywordAssert: {
            advance();
            AssertStmt node;
            node.test = parseExpression();
            if (accept(TokenKind::Comma)) node.message = parseExpression();
            return makeStmt(rangeFrom(begin), std::move(node));
        }
        case TokenKind::KeywordImport: return parseImport();
        case TokenKind::KeywordFrom: return parseFromImport();
        default: rejectSoftKeywordStatements(); return parseExpressionStatement();
    }
}

/// Expression statements and every assignment form: chained, unpacking, augmented and annotated.
StmtPtr Parser::parseExpressionStatement() {
    SourcePos begin = startPos();
    ExprPtr first = parseAssignedValue();
    if (at(TokenKind::Equal)) {
        AssignStmt node;
        node.targets.push_back(std::move(first));
        while (accept(TokenKind::Equal)) node.targets.push_back(parseAssignedValue());
        node.value = std::move(node.targets.back());
        node.targets.pop_back();
        for (const ExprPtr& target : node.targets) checkTarget(*target, TargetUse::Assign);
        if (node.value->is<StarredExpr>()) fail(node.value->range.begin, "can't use starred expression here");
        return makeStmt(rangeFrom(begin), std::move(node));
    }
    TokenKind kind = current().kind;
    if (isAugmentedAssignment(kind)) {
        advance();
        checkTarget(*first, TargetUse::AugAssign);
        AugAssignStmt node;
        node.op = augmentedOperator(kind);
        node.target = std::move(first);
        node.value = at(TokenKind::KeywordYield) ? parseYieldExpression() : parseStarExpressions();
        return makeStmt(rangeFrom(begin), std::move(node));
    }
    if (accept(TokenKind::Colon)) {
        checkTarget(*first, TargetUse::AnnAssign);
        AnnAssignStmt node;
        node.target = std::move(first);
        node.annotation = parseExpression();
        if (accept(TokenKind::Equal)) node.value = at(TokenKind::KeywordYield) ? parseYieldExpression() : parseStarExpressions();
        return makeStmt(rangeFrom(begin), std::move(node));
    }
    if (first->is<StarredExpr>()) fail(first->range.begin, "can't use starred expression here");
    return makeStmt(rangeFrom(begin), ExprStmt{std::move(first)});
}

std::string Parser::parseDottedName() {
    std::string name = expect(TokenKind::Name).text;
    while (accept(TokenKind::Dot)) name += "." + expect(TokenKind::Name).text;
    return name;
}

StmtPtr Parser::parseImport() {
    SourcePos begin = advance().range.begin;
    ImportStmt node;
    do {
        SourcePos aliasBegin = startPos();
        ImportAlias alias;
        alias.name = parseDottedName();
        if (accept(TokenKind::KeywordAs)) alias.asName = expect(TokenKind::Name).text;
        alias.range = rangeFrom(aliasBegin);
        node.names.push_back(std::move(alias));
    } while (accept(TokenKind::Comma));
    return makeStmt(rangeFrom(begin), std::move(node));
}

StmtPtr Parser::parseFromImport() {
    SourcePos begin = advance().range.begin;
    if (at(TokenKind::Dot) || at(TokenKind::Ellipsis))
        failUnsupported(startPos(), "relative import", "imports are absolute in the cwb subset");
    ImportFromStmt node;
    node.module = parseDottedName();
    expect(TokenKind::KeywordImport);
    if (at(TokenKind::Star)) failUnsupported(startPos(), "'import *'", "star imports are not in the cwb subset");
    bool parenthesized = accept(TokenKind::LeftParen);
    do {
        if (parenthesized && at(TokenKind::RightParen)) break;
        SourcePos aliasBegin = startPos();
        ImportAlias alias;
        alias.name = expect(TokenKind::Name).text;
        if (accept(TokenKind::KeywordAs)) alias.asName = expect(TokenKind::Name).text;
        alias.range = rangeFrom(aliasBegin);
        node.names.push_back(std::move(alias));
    } while (accept(TokenKind::Comma));
    if (parenthesized) expect(TokenKind::RightParen);
    if (node.names.empty()) failExpected("a name to import");
    return makeStmt(rangeFrom(begin), std::move(node));
}

Expected<Module> parseModule(const SourceFile& file) {
    return catchFrontendError<Module>([&] {
        Expected<std::vector<Token>> tokens = tokenize(file);
        if (!tokens) throw FrontendError(tokens.error());
        return Parser(file, std::move(*tokens)).parseModule();
    });
}

}  // namespace eng::frontend
