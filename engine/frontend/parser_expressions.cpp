// Expression parsing by precedence climbing (lambda, conditional, or/and/not, comparisons, bitwise, arithmetic,
// unary, power, primaries), displays and comprehensions, f-string fields, and assignment-target checks.
#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "frontend/lexer.h"
#include "frontend/parser_internal.h"

namespace eng::frontend {

namespace {

struct BinaryLevel {
    std::vector<std::pair<TokenKind, BinaryOperator>> operators;
};

// Loosest first: | then ^ then & then shifts, sums and terms; unary operators and ** sit below (parseFactor).
const std::vector<BinaryLevel>& binaryLevels() {
    static const std::vector<BinaryLevel> kLevels = {
        {{{TokenKind::Pipe, BinaryOperator::BitOr}}},
        {{{TokenKind::Caret, BinaryOperator::BitXor}}},
        {{{TokenKind::Ampersand, BinaryOperator::BitAnd}}},
        {{{TokenKind::LeftShift, BinaryOperator::LeftShift}, {TokenKind::RightShift, BinaryOperator::RightShift}}},
        {{{TokenKind::Plus, BinaryOperator::Add}, {TokenKind::Minus, BinaryOperator::Subtract}}},
        {{{TokenKind::Star, BinaryOperator::Multiply},
          {TokenKind::Slash, BinaryOperator::TrueDivide},
          {TokenKind::DoubleSlash, BinaryOperator::FloorDivide},
          {TokenKind::Percent, BinaryOperator::Remainder},
          {TokenKind::At, BinaryOperator::MatrixMultiply}}},
    };
    return kLevels;
}

bool canStartExpression(TokenKind kind) {
    switch (kind) {
        case TokenKind::Name:
        case TokenKind::Integer:
        case TokenKind::Float:
        case TokenKind::String:
        case TokenKind::FString:
        case TokenKind::LeftParen:
        case TokenKind::LeftBracket:
        case TokenKind::LeftBrace:
        case TokenKind::Minus:
        case TokenKind::Plus:
        case TokenKind::Tilde:
        case TokenKind::Star:
        case TokenKind::Ellipsis:
        case TokenKind::KeywordNot:
        case TokenKind::KeywordLambda:
        case TokenKind::KeywordNone:
        case TokenKind::KeywordTrue:
        case TokenKind::KeywordFalse:
        case TokenKind::KeywordAwait:
        case TokenKind::KeywordYield: return true;
        default: return false;
    }
}

void appendPart(ExprList& parts, ExprPtr part) {
    // Adjacent literal pieces (from "a" f"b{x}" or a debug text) merge into one constant.
    auto* constant = part->as<ConstantExpr>();
    if (constant && !parts.empty()) {
        if (auto* previous = parts.back()->as<ConstantExpr>()) {
            std::get<std::string>(previous->value) += std::get<std::string>(constant->value);
            parts.back()->range = spanning(parts.back()->range, part->range);
            return;
        }
    }
    parts.push_back(std::move(part));
}

std::string describeTarget(const Expr& target) {
    return std::visit(Overloaded{
                          [](const CallExpr&) -> std::string { return "function call"; },
                          [](const ConstantExpr& c) -> std::string {
                              if (std::holds_alternative<NoneValue>(c.value)) return "None";
                              if (const bool* flag = std::get_if<bool>(&c.value)) return *flag ? "True" : "False";
                              if (std::holds_alternative<EllipsisValue>(c.value)) return "ellipsis";
                              return "literal";
                          },
                          [](const CompareExpr&) -> std::string { return "comparison"; },
                          [](const AttributeExpr&) -> std::string { return "attribute"; },
                          [](const SubscriptExpr&) -> std::string { return "subscript"; },
                          [](const NamedExpr&) -> std::string { return "named expression"; },
                          [](const ConditionalExpr&) -> std::string { return "conditional expression"; },
                          [](const LambdaExpr&) -> std::string { return "lambda"; },
                          [](const FStringExpr&) -> std::string { return "f-string expression"; },
                          [](const DictExpr&) -> std::string { return "dict literal"; },
                          [](const SetExpr&) -> std::string { return "set display"; },
                          [](const ComprehensionExpr& c) -> std::string {
                              switch (c.kind) {
                                  case ComprehensionKind::List: return "list comprehension";
                                  case ComprehensionKind::Set: return "set comprehension";
                                  case ComprehensionKind::Dict: return "dict comprehension";
                                  case ComprehensionKind::Generator: return "generator expression";
                              }
                              return "comprehension";
                          },
                          [](const TupleExpr&) -> std::string { return "tuple"; },
                          [](const ListExpr&) -> std::string { return "list"; },
                          [](const StarredExpr&) -> std::string { return "starred"; },
                          [](const YieldExpr&) -> std::string { return "yield expression"; },
                          [](const auto&) -> std::string { return "expression"; },
                      },
                      target.node);
}

}  // namespace

// ---- precedence levels ------------------------------------------------------------------------------------

ExprPtr Parser::parseExpression() {
    if (at(TokenKind::KeywordLambda)) return parseLambda();
    SourcePos begin = startPos();
    ExprPtr body = parseDisjunction();
    if (at(TokenKind::ColonEqual)) {
        if (!body->as<NameExpr>()) fail(begin, "cannot use assignment expressions with " + describeTarget(*body));
        advance();
        ExprPtr value = parseExpression();
        return makeExpr(rangeFrom(begin), NamedExpr{std::move(body), std::move(value)});
    }
    if (!accept(TokenKind::KeywordIf)) return body;
    ConditionalExpr node;
    node.body = std::move(body);
    node.test = parseDisjunction();
    if (!accept(TokenKind::KeywordElse)) failExpected("'else' after 'if' expression");
    node.orelse = parseExpression();
    return makeExpr(rangeFrom(begin), std::move(node));
}

ExprPtr Parser::parseStarExpression() {
    if (!at(TokenKind::Star)) return parseExpression();
    SourcePos begin = advance().range.begin;
    ExprPtr value = parseBinary(0);
    return makeExpr(rangeFrom(begin), StarredExpr{std::move(value)});
}

ExprPtr Parser::parseStarExpressions(bool allowLoneStar) {
    SourcePos begin = startPos();
    ExprPtr first = parseStarExpression();
    if (!at(TokenKind::Comma)) {
        if (!allowLoneStar && first->is<StarredExpr>()) fail(first->range.begin, "can't use starred expression here");
        return first;
    }
    TupleExpr tuple;
    tuple.elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && canStartExpression(current().kind))
        tuple.elements.push_back(parseStarExpression());
    return makeExpr(rangeFrom(begin), std::move(tuple));
}

ExprPtr Parser::parseDisjunction() {
    SourcePos begin = startPos();
    ExprPtr first = parseConjunction();
    if (!at(TokenKind::KeywordOr)) return first;
    BoolOpExpr node{BoolOperator::Or, {}};
    node.values.push_back(std::move(first));
    while (accept(TokenKind::KeywordOr)) node.values.push_back(parseConjunction());
    return makeExpr(rangeFrom(begin), std::move(node));
}

ExprPtr Parser::parseConjunction() {
    SourcePos begin = startPos();
    ExprPtr first = parseInversion();
    if (!at(TokenKind::KeywordAnd)) return first;
    BoolOpExpr node{BoolOperator::And, {}};
    node.values.push_back(std::move(first));
    while (accept(TokenKind::KeywordAnd)) node.values.push_back(parseInversion());
    return makeExpr(rangeFrom(begin), std::move(node));
}

ExprPtr Parser::parseInversion() {
    if (!at(TokenKind::KeywordNot)) return parseComparison();
    SourcePos begin = advance().range.begin;
    ExprPtr operand = parseInversion();
    return makeExpr(rangeFrom(begin), UnaryExpr{UnaryOperator::Not, std::move(operand)});
}

ExprPtr Parser::parseComparison() {
    SourcePos begin = startPos();
    ExprPtr left = parseBinary(0);
    // Consumes one comparison operator (two tokens for `not in` and `is not`), if one is next.
    auto acceptOperator = [&]() -> std::optional<CompareOperator> {
        std::optional<CompareOperator> op;
        switch (current().kind) {
            case TokenKind::Less: op = CompareOperator::Less; break;
            case TokenKind::LessEqual: op = CompareOperator::LessEqual; break;
            case TokenKind::EqualEqual: op = CompareOperator::Equal; break;
            case TokenKind::NotEqual: op = CompareOperator::NotEqual; break;
            case TokenKind::Greater: op = CompareOperator::Greater; break;
            case TokenKind::GreaterEqual: op = CompareOperator::GreaterEqual; break;
            case TokenKind::KeywordIn: op = CompareOperator::In; break;
            case TokenKind::KeywordIs:
                op = peek(1).kind == TokenKind::KeywordNot ? (advance(), CompareOperator::IsNot) : CompareOperator::Is;
                break;
            case TokenKind::KeywordNot:
                if (peek(1).kind != TokenKind::KeywordIn) return std::nullopt;
                advance();
                op = CompareOperator::NotIn;
                break;
            default: return std::nullopt;
        }
        advance();
        return op;
    };
    CompareExpr node;
    while (std::optional<CompareOperator> op = acceptOperator()) {
        node.ops.push_back(*op);
        node.comparators.push_back(parseBinary(0));
    }
    if (node.ops.empty()) return left;
    node.left = std::move(left);
    return makeExpr(rangeFrom(begin), std::move(node));
}

ExprPtr Parser::parseBinary(int level) {
    const auto& levels = binaryLevels();
    if (level == static_cast<int>(levels.size())) return parseFactor();
    SourcePos begin = startPos();
    ExprPtr left = parseBinary(level + 1);
    while (true) {
        const auto& operators = levels[static_cast<size_t>(level)].operators;
        auto found =
            std::find_if(operators.begin(), operators.end(), [&](const auto& entry) { return at(entry.first); });
        if (found == operators.end()) return left;
        advance();
        ExprPtr right = parseBinary(level + 1);
        left = makeExpr(rangeFrom(begin), BinaryExpr{found->second, std::move(left), std::move(right)});
    }
}

ExprPtr Parser::parseFactor() {
    SourcePos begin = startPos();
    UnaryOperator op;
    if (at(TokenKind::Minus)) {
        op = UnaryOperator::Negative;
    } else if (at(TokenKind::Plus)) {
        op = UnaryOperator::Positive;
    } else if (at(TokenKind::Tilde)) {
        op = UnaryOperator::Invert;
    } else {
        return parsePower();
    }
    advance();
    ExprPtr operand = parseFactor();
    return makeExpr(rangeFrom(begin), UnaryExpr{op, std::move(operand)});
}

ExprPtr Parser::parsePower() {
    SourcePos begin = startPos();
    if (at(TokenKind::KeywordAwait)) failUnsupported(begin, "'await'", "coroutines are not in the cwb subset");
    ExprPtr base = parsePrimary();
    if (!accept(TokenKind::DoubleStar)) return base;
    ExprPtr exponent = parseFactor();  // right-associative, and binds tighter than a unary minus on its left
    return makeExpr(rangeFrom(begin), BinaryExpr{BinaryOperator::Power, std::move(base), std::move(exponent)});
}

ExprPtr Parser::parsePrimary() {
    SourcePos begin = startPos();
    ExprPtr value = parseAtom();
    while (true) {
        if (accept(TokenKind::Dot)) {
            std::string attr = expect(TokenKind::Name).text;
            value = makeExpr(rangeFrom(begin), AttributeExpr{std::move(value), std::move(attr)});
        } else if (at(TokenKind::LeftParen)) {
            CallExpr call;
            call.func = std::move(value);
            parseCallArguments(call);
            value = makeExpr(rangeFrom(begin), std::move(call));
        } else if (accept(TokenKind::LeftBracket)) {
            SourcePos indexBegin = startPos();
            ExprPtr index = parseSubscriptItem();
            if (at(TokenKind::Comma)) {
                TupleExpr tuple;
                tuple.elements.push_back(std::move(index));
                while (accept(TokenKind::Comma) && !at(TokenKind::RightBracket))
                    tuple.elements.push_back(parseSubscriptItem());
                index = makeExpr(rangeFrom(indexBegin), std::move(tuple));
            }
            expect(TokenKind::RightBracket);
            value = makeExpr(rangeFrom(begin), SubscriptExpr{std::move(value), std::move(index)});
        } else {
            return value;
        }
    }
}

ExprPtr Parser::parseAtom() {
    SourcePos begin = startPos();
    const Token& token = current();
    switch (token.kind) {
        case TokenKind::Name: return makeExpr(advance().range, NameExpr{token.text});
        case TokenKind::KeywordNone: return makeExpr(advance().range, ConstantExpr{NoneValue{}});
        case TokenKind::KeywordTrue: return makeExpr(advance().range, ConstantExpr{true});
        case TokenKind::KeywordFalse: return makeExpr(advance().range, ConstantExpr{false});
        case TokenKind::Ellipsis: return makeExpr(advance().range, ConstantExpr{EllipsisValue{}});
        case TokenKind::Integer: return makeExpr(advance().range, ConstantExpr{token.intValue});
        case TokenKind::Float: return makeExpr(advance().range, ConstantExpr{token.floatValue});
        case TokenKind::String:
        case TokenKind::FString: return parseStrings();
        case TokenKind::LeftParen: return parseParenthesized();
        case TokenKind::LeftBracket: return parseListDisplay();
        case TokenKind::LeftBrace: return parseBraceDisplay();
        case TokenKind::KeywordYield: fail(begin, "invalid syntax: a yield expression here needs parentheses");
        case TokenKind::KeywordAwait: failUnsupported(begin, "'await'", "coroutines are not in the cwb subset");
        case TokenKind::Star: fail(begin, "can't use starred expression here");
        default: failExpected("an expression");
    }
}

ExprPtr Parser::parseYieldExpression() {
    SourcePos begin = advance().range.begin;
    if (!contexts_.back().inFunction) fail(begin, "'yield' outside function");
    YieldExpr node;
    if (accept(TokenKind::KeywordFrom)) {
        node.from = true;
        node.value = parseExpression();
    } else if (canStartExpression(current().kind)) {
        node.value = parseStarExpressions();
    }
    return makeExpr(rangeFrom(begin), std::move(node));
}

ExprPtr Parser::parseAssignedValue() {
    return at(TokenKind::KeywordYield) ? parseYieldExpression() : parseStarExpressions(true);
}

ExprPtr Parser::parseLambda() {
    SourcePos begin = advance().range.begin;
    LambdaExpr node;
    node.params = parseParameters(TokenKind::Colon, false);
    expect(TokenKind::Colon);
    node.body = parseExpression();
    return makeExpr(rangeFrom(begin), std::move(node));
}

// ---- displays and comprehensions --------------------------------------------------------------------------

ExprPtr Parser::parseParenthesized() {
    SourcePos begin = advance().range.begin;
    if (accept(TokenKind::RightParen)) return makeExpr(rangeFrom(begin), TupleExpr{});
    if (at(TokenKind::KeywordYield)) {
        ExprPtr yielded = parseYieldExpression();
        expect(TokenKind::RightParen);
        yielded->range = rangeFrom(begin);
        return yielded;
    }
    ExprPtr first = parseStarExpression();
    if ((at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) && !first->is<StarredExpr>()) {
        ExprPtr comprehension = finishComprehension(begin, ComprehensionKind::Generator, std::move(first), nullptr);
        expect(TokenKind::RightParen);
        comprehension->range = rangeFrom(begin);
        return comprehension;
    }
    if (!at(TokenKind::Comma)) {
        expect(TokenKind::RightParen);
        if (first->is<StarredExpr>()) fail(first->range.begin, "can't use starred expression here");
        return first;
    }
    TupleExpr tuple;
    tuple.elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && !at(TokenKind::RightParen)) tuple.elements.push_back(parseStarExpression());
    expect(TokenKind::RightParen);
    return makeExpr(rangeFrom(begin), std::move(tuple));
}

ExprPtr Parser::parseListDisplay() {
    SourcePos begin = advance().range.begin;
    ListExpr list;
    if (!at(TokenKind::RightBracket)) {
        ExprPtr first = parseStarExpression();
        if ((at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) && !first->is<StarredExpr>()) {
            ExprPtr comprehension = finishComprehension(begin, ComprehensionKind::List, std::move(first), nullptr);
            expect(TokenKind::RightBracket);
            comprehension->range = rangeFrom(begin);
            return comprehension;
        }
        list.elements.push_back(std::move(first));
        while (accept(TokenKind::Comma) && !at(TokenKind::RightBracket)) list.elements.push_back(parseStarExpression());
    }
    expect(TokenKind::RightBracket);
    return makeExpr(rangeFrom(begin), std::move(list));
}

ExprPtr Parser::parseBraceDisplay() {
    SourcePos begin = advance().range.begin;
    if (accept(TokenKind::RightBrace)) return makeExpr(rangeFrom(begin), DictExpr{});
    auto parseDictItem = [&] {
        if (accept(TokenKind::DoubleStar)) return DictItem{nullptr, parseBinary(0)};
        ExprPtr key = parseExpression();
        expect(TokenKind::Colon);
        return DictItem{std::move(key), parseExpression()};
    };
    ExprPtr first;
    if (!at(TokenKind::DoubleStar)) {
        first = parseStarExpression();
        if (first->is<StarredExpr>() || !at(TokenKind::Colon)) {
            SetExpr set;
            if ((at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) && !first->is<StarredExpr>()) {
                ExprPtr comprehension = finishComprehension(begin, ComprehensionKind::Set, std::move(first), nullptr);
                expect(TokenKind::RightBrace);
                comprehension->range = rangeFrom(begin);
                return comprehension;
            }
            set.elements.push_back(std::move(first));
            while (accept(TokenKind::Comma) && !at(TokenKind::RightBrace))
                set.elements.push_back(parseStarExpression());
            expect(TokenKind::RightBrace);
            return makeExpr(rangeFrom(begin), std::move(set));
        }
    }
    DictExpr dict;
    if (first) {
        expect(TokenKind::Colon);
        ExprPtr value = parseExpression();
        if (at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) {
            ExprPtr comprehension =
                finishComprehension(begin, ComprehensionKind::Dict, std::move(first), std::move(value));
            expect(TokenKind::RightBrace);
            comprehension->range = rangeFrom(begin);
            return comprehension;
        }
        dict.items.push_back(DictItem{std::move(first), std::move(value)});
        if (!accept(TokenKind::Comma)) {
            expect(TokenKind::RightBrace);
            return makeExpr(rangeFrom(begin), std::move(dict));
        }
    }
    while (!at(TokenKind::RightBrace)) {
        dict.items.push_back(parseDictItem());
        if (!accept(TokenKind::Comma)) break;
    }
    expect(TokenKind::RightBrace);
    return makeExpr(rangeFrom(begin), std::move(dict));
}

std::vector<ComprehensionClause> Parser::parseComprehensionClauses() {
    std::vector<ComprehensionClause> clauses;
    while (at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) {
        SourcePos begin = startPos();
        if (at(TokenKind::KeywordAsync)) failUnsupported(begin, "'async'", "coroutines are not in the cwb subset");
        advance();
        ComprehensionClause clause;
        clause.target = parseTargetList();
        checkTarget(*clause.target, TargetUse::Comprehension);
        expect(TokenKind::KeywordIn);
        clause.iter = parseDisjunction();
        while (accept(TokenKind::KeywordIf)) clause.conditions.push_back(parseDisjunction());
        clause.range = rangeFrom(begin);
        clauses.push_back(std::move(clause));
    }
    return clauses;
}

ExprPtr Parser::finishComprehension(SourcePos begin, ComprehensionKind kind, ExprPtr element, ExprPtr value) {
    ComprehensionExpr node{kind, std::move(element), std::move(value), parseComprehensionClauses()};
    return makeExpr(rangeFrom(begin), std::move(node));
}

/// `for` targets: primaries (names, attributes, subscripts, parenthesized or bracketed lists), stopping before
/// `in`, which a full expression would swallow as a comparison.
ExprPtr Parser::parseTargetList() {
    SourcePos begin = startPos();
    ExprList elements;
    bool sawComma = false;
    do {
        if (at(TokenKind::Star)) {
            SourcePos starBegin = advance().range.begin;
            ExprPtr value = parsePrimary();
            elements.push_back(makeExpr(rangeFrom(starBegin), StarredExpr{std::move(value)}));
        } else {
            elements.push_back(parsePrimary());
        }
        if (!accept(TokenKind::Comma)) break;
        sawComma = true;
    } while (!at(TokenKind::KeywordIn) && !at(TokenKind::Equal));
    if (elements.size() == 1 && !sawComma) return std::move(elements.front());
    return makeExpr(rangeFrom(begin), TupleExpr{std::move(elements)});
}

// ---- calls and subscripts ---------------------------------------------------------------------------------

void Parser::parseCallArguments(CallExpr& call) {
    expect(TokenKind::LeftParen);
    bool sawKeyword = false;
    bool sawKeywordUnpacking = false;
    while (!at(TokenKind::RightParen)) {
        SourcePos begin = startPos();
        if (accept(TokenKind::Star)) {
            if (sawKeywordUnpacking) fail(begin, "iterable argument unpacking follows keyword argument unpacking");
            ExprPtr value = parseExpression();
            call.args.push_back(makeExpr(rangeFrom(begin), StarredExpr{std::move(value)}));
        } else if (accept(TokenKind::DoubleStar)) {
            ExprPtr value = parseExpression();
            call.keywords.push_back(Keyword{"", std::move(value), rangeFrom(begin)});
            sawKeywordUnpacking = true;
        } else if (at(TokenKind::Name) && peek(1).kind == TokenKind::Equal) {
            std::string name = advance().text;
            advance();
            ExprPtr value = parseExpression();
            for (const Keyword& keyword : call.keywords)
                if (keyword.name == name) fail(begin, fmt::format("keyword argument repeated: {}", name));
            call.keywords.push_back(Keyword{std::move(name), std::move(value), rangeFrom(begin)});
            sawKeyword = true;
        } else {
            ExprPtr value = parseExpression();
            if (at(TokenKind::Equal))
                fail(value->range.begin, "expression cannot contain assignment, perhaps you meant \"==\"?");
            if (at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) {
                value = finishComprehension(begin, ComprehensionKind::Generator, std::move(value), nullptr);
                if (!call.args.empty() || !call.keywords.empty() || at(TokenKind::Comma))
                    fail(value->range.begin, "Generator expression must be parenthesized");
            }
            if (sawKeywordUnpacking) fail(begin, "positional argument follows keyword argument unpacking");
            if (sawKeyword) fail(begin, "positional argument follows keyword argument");
            call.args.push_back(std::move(value));
        }
        if (!accept(TokenKind::Comma)) break;
    }
    expect(TokenKind::RightParen);
}

/// One item between [ and ]: an expression or a slice lower:upper:step with any part left out.
ExprPtr Parser::parseSubscriptItem() {
    SourcePos begin = startPos();
    if (at(TokenKind::Star)) failUnsupported(begin, "starred subscript", "unpack into a tuple first in the cwb subset");
    SliceExpr slice;
    if (!at(TokenKind::Colon)) {
        ExprPtr index = parseExpression();
        if (!at(TokenKind::Colon)) return index;
        slice.lower = std::move(index);
    }
    expect(TokenKind::Colon);
    auto endsPart = [&] { return at(TokenKind::Colon) || at(TokenKind::Comma) || at(TokenKind::RightBracket); };
    if (!endsPart()) slice.upper = parseExpression();
    if (accept(TokenKind::Colon) && !at(TokenKind::Comma) && !at(TokenKind::RightBracket))
        slice.step = parseExpression();
    return makeExpr(rangeFrom(begin), std::move(slice));
}

// ---- strings ----------------------------------------------------------------------------------------------

/// Adjacent literals concatenate; any f-string among them makes the whole an FStringExpr.
ExprPtr Parser::parseStrings() {
    SourcePos begin = startPos();
    bool anyFString = false;
    size_t first = index_;
    while (at(TokenKind::String) || at(TokenKind::FString)) anyFString |= advance().kind == TokenKind::FString;
    size_t last = index_;
    if (!anyFString) {
        std::string value;
        for (size_t i = first; i < last; ++i) value += tokens_[i].text;
        return makeExpr(rangeFrom(begin), ConstantExpr{std::move(value)});
    }
    FStringExpr joined;
    for (size_t i = first; i < last; ++i) {
        const Token& token = tokens_[i];
        if (token.kind == TokenKind::String) {
            if (!token.text.empty()) appendPart(joined.parts, makeExpr(token.range, ConstantExpr{token.text}));
            continue;
        }
        ExprPtr pieces = parseFStringPieces(*token.fstring, token.range);
        for (ExprPtr& part : pieces->as<FStringExpr>()->parts) appendPart(joined.parts, std::move(part));
    }
    return makeExpr(rangeFrom(begin), std::move(joined));
}

ExprPtr Parser::parseFStringPieces(const std::vector<FStringPiece>& pieces, SourceRange range) {
    FStringExpr joined;
    for (const FStringPiece& piece : pieces) {
        if (!piece.isField) {
            appendPart(joined.parts, makeExpr(range, ConstantExpr{piece.literal}));
            continue;
        }
        if (!piece.debugText.empty()) appendPart(joined.parts, makeExpr(range, ConstantExpr{piece.debugText}));
        Parser field(file_, tokenizeFieldExpression(file_, piece.exprBegin, piece.exprEnd, piece.exprPos));
        FormattedValueExpr formatted;
        formatted.value = field.parseFieldExpression();
        formatted.conversion = piece.conversion;
        // f"{x=}" shows repr(x) unless a conversion or a format spec says otherwise.
        if (!piece.debugText.empty() && piece.conversion == 0 && !piece.hasFormatSpec) formatted.conversion = 'r';
        if (piece.hasFormatSpec) formatted.formatSpec = parseFStringPieces(piece.formatSpec, range);
        SourceRange valueRange = formatted.value->range;
        joined.parts.push_back(makeExpr(valueRange, std::move(formatted)));
    }
    return makeExpr(range, std::move(joined));
}

/// A replacement field is parsed as if parenthesized, so a bare generator expression is allowed there too.
ExprPtr Parser::parseFieldExpression() {
    SourcePos begin = startPos();
    ExprPtr value = parseStarExpressions();
    if ((at(TokenKind::KeywordFor) || at(TokenKind::KeywordAsync)) && !value->is<TupleExpr>())
        value = finishComprehension(begin, ComprehensionKind::Generator, std::move(value), nullptr);
    if (!at(TokenKind::EndOfFile)) fail(startPos(), "f-string: expecting '}'");
    return value;
}

// ---- targets ----------------------------------------------------------------------------------------------

void Parser::checkTarget(const Expr& target, TargetUse use) const {
    auto invalid = [&](const Expr& bad) {
        std::string what = describeTarget(bad);
        switch (use) {
            case TargetUse::Delete: fail(bad.range.begin, fmt::format("cannot delete {}", what));
            case TargetUse::AugAssign:
                fail(bad.range.begin, fmt::format("'{}' is an illegal expression for augmented assignment", what));
            case TargetUse::AnnAssign:
                if (bad.is<TupleExpr>() || bad.is<ListExpr>())
                    fail(bad.range.begin, fmt::format("only single target (not {}) can be annotated", what));
                fail(bad.range.begin, "illegal target for annotation");
            case TargetUse::Assign:
            case TargetUse::For:
            case TargetUse::With:
            case TargetUse::Comprehension: fail(bad.range.begin, fmt::format("cannot assign to {}", what));
        }
    };
    auto checkSequence = [&](const ExprList& elements) {
        if (use == TargetUse::AugAssign || use == TargetUse::AnnAssign) invalid(target);
        int starred = 0;
        for (const ExprPtr& element : elements) {
            if (const auto* star = element->as<StarredExpr>()) {
                if (use == TargetUse::Delete) invalid(*element);
                if (++starred > 1) fail(element->range.begin, "multiple starred expressions in assignment");
                checkTarget(*star->value, use);
            } else {
                checkTarget(*element, use);
            }
        }
    };
    if (target.is<NameExpr>() || target.is<AttributeExpr>() || target.is<SubscriptExpr>()) return;
    if (const auto* tuple = target.as<TupleExpr>()) return checkSequence(tuple->elements);
    if (const auto* list = target.as<ListExpr>()) return checkSequence(list->elements);
    if (target.is<StarredExpr>() && use != TargetUse::Delete && use != TargetUse::AugAssign &&
        use != TargetUse::AnnAssign)
        fail(target.range.begin, "starred assignment target must be in a list or tuple");
    invalid(target);
}

}  // namespace eng::frontend
