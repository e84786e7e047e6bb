// The syntax tree of the cwb Python subset (engine/SUBSET.md). Every node carries its source range.
// Expressions and statements are closed sets of node structs held in a std::variant, so that every pass that
// std::visit's them must handle each kind (a missing case does not compile).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frontend/source.h"
#include "ops/operators.h"

namespace eng::frontend {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using ExprList = std::vector<ExprPtr>;
using StmtList = std::vector<StmtPtr>;

/// Python's binary and unary operators, one table for every layer: ops/operators.def.
using BinaryOperator = ops::BinaryOperator;
using UnaryOperator = ops::UnaryOperator;
enum class BoolOperator : uint8_t { And, Or };
enum class CompareOperator : uint8_t { Less, LessEqual, Equal, NotEqual, Greater, GreaterEqual, In, NotIn, Is, IsNot };
enum class ComprehensionKind : uint8_t { List, Set, Dict, Generator };

/// Python's spelling: "+", "//", "@", "not", "is not", ...
std::string_view operatorSymbol(BinaryOperator op);
std::string_view operatorSymbol(UnaryOperator op);
std::string_view operatorSymbol(BoolOperator op);
std::string_view operatorSymbol(CompareOperator op);

struct NoneValue {
    friend bool operator==(NoneValue, NoneValue) { return true; }
};
struct EllipsisValue {
    friend bool operator==(EllipsisValue, EllipsisValue) { return true; }
};
/// A literal's value. Integers are 64-bit in the subset; strings are UTF-8.
using ConstantValue = std::variant<NoneValue, EllipsisValue, bool, int64_t, double, std::string>;

// ---- Expressions ------------------------------------------------------------------------------------------

struct NameExpr {
    std::string id;
};
struct ConstantExpr {
    ConstantValue value;
};
/// f"..." : parts are ConstantExpr strings and FormattedValueExpr fields, in order (Python's JoinedStr).
struct FStringExpr {
    ExprList parts;
};
/// One {value!conversion:spec} field; conversion is 0, 's', 'r' or 'a'; formatSpec is an FStringExpr or null.
struct FormattedValueExpr {
    ExprPtr value;
    char conversion = 0;
    ExprPtr formatSpec;
};
struct AttributeExpr {
    ExprPtr value;
    std::string attr;
};
/// value[index]; a tuple index (x[:, None]) is a TupleExpr whose elements may be SliceExprs.
struct SubscriptExpr {
    ExprPtr value;
    ExprPtr index;
};
/// lower:upper:step inside a subscript; absent parts are null.
struct SliceExpr {
    ExprPtr lower;
    ExprPtr upper;
    ExprPtr step;
};
/// *value, in a call, a display or an assignment target.
struct StarredExpr {
    ExprPtr value;
};
/// name=value in a call or class header; **value when name is empty.
struct Keyword {
    std::string name;
    ExprPtr value;
    SourceRange range;
};
/// func(args..., keywords...): args may hold StarredExprs.
struct CallExpr {
    ExprPtr func;
    ExprList args;
    std::vector<Keyword> keywords;
};
struct UnaryExpr {
    UnaryOperator op;
    ExprPtr operand;
};
struct BinaryExpr {
    BinaryOperator op;
    ExprPtr left;
    ExprPtr right;
};
/// a and b and c: two or more values.
struct BoolOpExpr {
    BoolOperator op;
    ExprList values;
};
/// left op0 comparators[0] op1 comparators[1] ...: a chained comparison.
struct CompareExpr {
    ExprPtr left;
    std::vector<CompareOperator> ops;
    ExprList comparators;
};
/// body if test else orelse
struct ConditionalExpr {
    ExprPtr test;
    ExprPtr body;
    ExprPtr orelse;
};

struct Parameter {
    std::string name;
    ExprPtr annotation;  ///< parsed, never evaluated
    SourceRange range;
};
/// A def's or lambda's parameters. `defaults` belong to the last positional parameters (positional-only
/// ones included); `keywordOnlyDefaults` has one entry per keyword-only parameter, null when it has none.
struct Parameters {
    std::vector<Parameter> positionalOnly;
    std::vector<Parameter> positional;
    ExprList defaults;
    std::optional<Parameter> varArgs;
    std::vector<Parameter> keywordOnly;
    ExprList keywordOnlyDefaults;
    std::optional<Parameter> varKeywords;
};
struct LambdaExpr {
    Parameters params;
    ExprPtr body;
};
struct TupleExpr {
    ExprList elements;
};
struct ListExpr {
    ExprList elements;
};
struct SetExpr {
    ExprList elements;
};
/// {key: value, **mapping}: key is null for a ** entry.
struct DictItem {
    ExprPtr key;
    ExprPtr value;
};
struct DictExpr {
    std::vector<DictItem> items;
};
/// for target in iter if c1 if c2
struct ComprehensionClause {
    ExprPtr target;
    ExprPtr iter;
    ExprList conditions;
    SourceRange range;
};
/// [element for ...], {element for ...}, {element: value for ...} or (element for ...).
struct ComprehensionExpr {
    ComprehensionKind kind;
    ExprPtr element;
    ExprPtr value;  ///< dict comprehensions only
    std::vector<ComprehensionClause> clauses;
};

/// `target := value` (PEP 572): stores the value in the name and evaluates to it; inside a comprehension the name
/// belongs to the enclosing function (or module).
struct NamedExpr {
    ExprPtr target;  ///< a NameExpr
    ExprPtr value;
};

/// `yield [value]` or `yield from value`: makes the enclosing function a generator.
struct YieldExpr {
    ExprPtr value;  ///< null for a bare `yield`
    bool from = false;
};

using ExprNode = std::variant<NameExpr, ConstantExpr, FStringExpr, FormattedValueExpr, AttributeExpr, SubscriptExpr,
                              SliceExpr, StarredExpr, CallExpr, UnaryExpr, BinaryExpr, BoolOpExpr, CompareExpr,
                              ConditionalExpr, LambdaExpr, TupleExpr, ListExpr, SetExpr, DictExpr, ComprehensionExpr,
                              YieldExpr, NamedExpr>;

/// What every syntax node is: its source range and one alternative of `Variant` (Expr and Stmt below).
template <typename Variant>
struct RangedNode {
    SourceRange range;
    Variant node;

    template <typename T>
    T* as() {
        return std::get_if<T>(&node);
    }
    template <typename T>
    const T* as() const {
        return std::get_if<T>(&node);
    }
    template <typename T>
    bool is() const {
        return std::holds_alternative<T>(node);
    }
};

struct Expr : RangedNode<ExprNode> {};

template <typename Node>
ExprPtr makeExpr(SourceRange range, Node node) {
    return std::make_unique<Expr>(Expr{{range, ExprNode(std::move(node))}});
}

// ---- Statements -------------------------------------------------------------------------------------------

/// def name(params) -> returns: body. Its range starts at `def`, after any decorators (as in CPython's ast).
struct FunctionDefStmt {
    std::string name;
    Parameters params;
    StmtList body;
    ExprList decorators;  ///< outermost first, as written
    ExprPtr returns;      ///< the -> annotation: parsed, never evaluated
};
/// class name(bases, metaclass=M): body. `metaclass=` is the one class keyword in the subset.
struct ClassDefStmt {
    std::string name;
    ExprList bases;  ///< as written; the VM linearises them (C3) when the class is made
    StmtList body;
    ExprList decorators;
    ExprPtr metaclass;  ///< null when not given (the class's metaclass is then its bases')
};
struct ReturnStmt {
    ExprPtr value;
};
struct DeleteStmt {
    ExprList targets;
};
/// t1 = t2 = value: targets in source order.
struct AssignStmt {
    ExprList targets;
    ExprPtr value;
};
struct AugAssignStmt {
    ExprPtr target;
    BinaryOperator op;
    ExprPtr value;
};
/// target: annotation [= value]; the annotation is parsed, never evaluated.
struct AnnAssignStmt {
    ExprPtr target;
    ExprPtr annotation;
    ExprPtr value;
};
struct ForStmt {
    ExprPtr target;
    ExprPtr iter;
    StmtList body;
    StmtList orelse;
};
struct WhileStmt {
    ExprPtr test;
    StmtList body;
    StmtList orelse;
};
/// if/elif/else: an elif is an IfStmt alone in orelse, as in Python's ast.
struct IfStmt {
    ExprPtr test;
    StmtList body;
    StmtList orelse;
};
struct WithItem {
    ExprPtr context;
    ExprPtr target;  ///< the `as` target, or null
};
struct WithStmt {
    std::vector<WithItem> items;
    StmtList body;
};
struct RaiseStmt {
    ExprPtr exception;  ///< null for a bare re-raise
    ExprPtr cause;      ///< the `from` expression, or null
};
/// except [type [as name]]: body
struct ExceptHandler {
    ExprPtr type;
    std::string name;
    StmtList body;
    SourceRange range;
};
struct TryStmt {
    StmtList body;
    std::vector<ExceptHandler> handlers;
    StmtList orelse;
    StmtList finalbody;
};
struct AssertStmt {
    ExprPtr test;
    ExprPtr message;
};
/// A dotted module name with an optional `as` name (import a.b as c), or a plain name (from m import x as y).
struct ImportAlias {
    std::string name;
    std::string asName;
    SourceRange range;
};
struct ImportStmt {
    std::vector<ImportAlias> names;
};
/// from module import names (absolute imports only in the subset).
struct ImportFromStmt {
    std::string module;
    std::vector<ImportAlias> names;
};
struct GlobalStmt {
    std::vector<std::string> names;
};
struct NonlocalStmt {
    std::vector<std::string> names;
};
struct ExprStmt {
    ExprPtr value;
};
struct PassStmt {};
struct BreakStmt {};
struct ContinueStmt {};

using StmtNode =
    std::variant<FunctionDefStmt, ClassDefStmt, ReturnStmt, DeleteStmt, AssignStmt, AugAssignStmt, AnnAssignStmt,
                 ForStmt, WhileStmt, IfStmt, WithStmt, RaiseStmt, TryStmt, AssertStmt, ImportStmt, ImportFromStmt,
                 GlobalStmt, NonlocalStmt, ExprStmt, PassStmt, BreakStmt, ContinueStmt>;

struct Stmt : RangedNode<StmtNode> {};

template <typename Node>
StmtPtr makeStmt(SourceRange range, Node node) {
    return std::make_unique<Stmt>(Stmt{{range, StmtNode(std::move(node))}});
}

/// A whole script.
struct Module {
    StmtList body;
    SourceRange range;
};

/// The docstring of a module, class or function body: its first statement when that is a string literal.
const std::string* docstringOf(const StmtList& body);

/// std::visit helper: Overloaded{[](const A&){...}, [](const B&){...}}.
template <typename... Callables>
struct Overloaded : Callables... {
    using Callables::operator()...;
};
template <typename... Callables>
Overloaded(Callables...) -> Overloaded<Callables...>;

}  // namespace eng::frontend
