// Builders, folding and printing of the kernel IR (kernel_ir.h); kernel_verifier.cpp checks kernels.
#include "inductor/ir/kernel_ir.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace eng::inductor {

namespace {

Index makeIndex(IndexNode::Op op, Index lhs, Index rhs) {
    auto node = std::make_shared<IndexNode>();
    node->op = op;
    node->lhs = std::move(lhs);
    node->rhs = std::move(rhs);
    return node;
}

bool mentionsVar(const Index& index, int number) {
    switch (index->op) {
        case IndexNode::Op::Constant:
        case IndexNode::Op::Symbol: return false;
        case IndexNode::Op::Var: return index->value == number;
        default: return mentionsVar(index->lhs, number) || mentionsVar(index->rhs, number);
    }
}

/// A split dim merged back, what a merging reshape leaves: (e // c) * c + e % c -> e, and read through a buffer's
/// stride k, (e // c) * (c * k) + (e % c) * k -> e * k; null when `high + low` is neither.
Index mergedBack(const Index& high, const Index& low) {
    const bool scaled = low->op == IndexNode::Op::Mul && constantValue(low->rhs);
    const Index& mod = scaled ? low->lhs : low;
    if (mod->op != IndexNode::Op::Mod || high->op != IndexNode::Op::Mul || high->lhs->op != IndexNode::Op::FloorDiv) return nullptr;
    if (!indexEqual(high->lhs->lhs, mod->lhs) || !indexEqual(high->lhs->rhs, mod->rhs)) return nullptr;
    if (!scaled) return indexEqual(high->rhs, mod->rhs) ? mod->lhs : nullptr;
    const auto c = constantValue(mod->rhs);
    return c && constantValue(high->rhs) == *c * low->rhs->value ? mod->lhs * low->rhs : nullptr;
}

}  // namespace

Index indexConstant(int64_t value) {
    auto node = std::make_shared<IndexNode>();
    node->value = value;
    return node;
}

Index indexVar(int number) {
    auto node = std::make_shared<IndexNode>();
    node->op = IndexNode::Op::Var;
    node->value = number;
    return node;
}

Index indexSymbol(const std::string& name) {
    auto node = std::make_shared<IndexNode>();
    node->op = IndexNode::Op::Symbol;
    node->symbol = name;
    return node;
}

std::optional<int64_t> constantValue(const Index& index) {
    if (index && index->op == IndexNode::Op::Constant) return index->value;
    return std::nullopt;
}

bool indexEqual(const Index& a, const Index& b) {
    if (a == b) return true;
    if (!a || !b || a->op != b->op || a->value != b->value || a->symbol != b->symbol) return false;
    if (a->op == IndexNode::Op::Constant || a->op == IndexNode::Op::Var || a->op == IndexNode::Op::Symbol) return true;
    return indexEqual(a->lhs, b->lhs) && indexEqual(a->rhs, b->rhs);
}

Index operator+(const Index& a, const Index& b) {
    auto ca = constantValue(a), cb = constantValue(b);
    // A split dim merged back, also at the end of a longer sum.
    if (Index e = mergedBack(a, b)) return e;
    if (a->op == IndexNode::Op::Add)
        if (Index e = mergedBack(a->rhs, b)) return a->lhs + e;
    if (ca && cb) return indexConstant(*ca + *cb);
    if (ca == 0) return b;
    if (cb == 0) return a;
    if (ca) return makeIndex(IndexNode::Op::Add, b, a);  // constants on the right: x0 + 3
    // (e + c1) + c2 -> e + (c1 + c2)
    if (cb && a->op == IndexNode::Op::Add && constantValue(a->rhs)) return a->lhs + indexConstant(*cb + a->rhs->value);
    return makeIndex(IndexNode::Op::Add, a, b);
}

Index operator*(const Index& a, const Index& b) {
    auto ca = constantValue(a), cb = constantValue(b);
    if (ca && cb) return indexConstant(*ca * *cb);
    if (ca == 0 || cb == 0) return indexConstant(0);
    if (ca == 1) return b;
    if (cb == 1) return a;
    if (ca) return makeIndex(IndexNode::Op::Mul, b, a);  // x0 * 1024
    // (e * c1) * c2 -> e * (c1 * c2)
    if (cb && a->op == IndexNode::Op::Mul && constantValue(a->rhs)) return a->lhs * indexConstant(*cb * a->rhs->value);
    return makeIndex(IndexNode::Op::Mul, a, b);
}

Index floorDiv(const Index& a, const Index& b) {
    auto ca = constantValue(a), cb = constantValue(b);
    if (cb == 1) return a;
    if (ca && cb && *cb != 0) return indexConstant(*ca >= 0 ? *ca / *cb : -((-*ca + *cb - 1) / *cb));
    if (ca == 0) return a;
    return makeIndex(IndexNode::Op::FloorDiv, a, b);
}

Index modulo(const Index& a, const Index& b) {
    auto ca = constantValue(a), cb = constantValue(b);
    if (cb == 1) return indexConstant(0);
    if (ca && cb && *cb != 0) return indexConstant(((*ca % *cb) + *cb) % *cb);
    if (ca == 0) return a;
    return makeIndex(IndexNode::Op::Mod, a, b);
}

Index product(std::span<const Index> sizes) {
    Index result = indexConstant(1);
    for (const Index& size : sizes) result = result * size;
    return result;
}

int64_t evaluate(const Index& index, std::span<const int64_t> vars, const SymbolValues& symbols) {
    switch (index->op) {
        case IndexNode::Op::Constant: return index->value;
        case IndexNode::Op::Var: return vars[static_cast<size_t>(index->value)];
        case IndexNode::Op::Symbol: {
            auto found = symbols.find(index->symbol);
            if (found == symbols.end()) throw std::logic_error("kernel index names unknown symbol " + index->symbol);
            return found->second;
        }
        case IndexNode::Op::Add: return evaluate(index->lhs, vars, symbols) + evaluate(index->rhs, vars, symbols);
        case IndexNode::Op::Mul: return evaluate(index->lhs, vars, symbols) * evaluate(index->rhs, vars, symbols);
        case IndexNode::Op::FloorDiv: {
            int64_t a = evaluate(index->lhs, vars, symbols), b = evaluate(index->rhs, vars, symbols);
            int64_t q = a / b;
            return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
        }
        case IndexNode::Op::Mod: {
            int64_t a = evaluate(index->lhs, vars, symbols), b = evaluate(index->rhs, vars, symbols);
            int64_t r = a % b;
            return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
        }
    }
    return 0;
}

std::optional<int64_t> constantStrideOf(const Index& index, int number) {
    switch (index->op) {
        case IndexNode::Op::Constant:
        case IndexNode::Op::Symbol: return 0;
        case IndexNode::Op::Var: return index->value == number ? 1 : 0;
        case IndexNode::Op::Add: {
            auto l = constantStrideOf(index->lhs, number), r = constantStrideOf(index->rhs, number);
            if (!l || !r) return std::nullopt;
            return *l + *r;
        }
        case IndexNode::Op::Mul: {
            bool inLeft = mentionsVar(index->lhs, number), inRight = mentionsVar(index->rhs, number);
            if (!inLeft && !inRight) return 0;
            if (inLeft && inRight) return std::nullopt;
            const Index& withVar = inLeft ? index->lhs : index->rhs;
            auto factor = constantValue(inLeft ? index->rhs : index->lhs);
            auto inner = constantStrideOf(withVar, number);
            if (!factor || !inner) return std::nullopt;
            return *inner * *factor;
        }
        case IndexNode::Op::FloorDiv:
        case IndexNode::Op::Mod:
            if (mentionsVar(index, number)) return std::nullopt;
            return 0;
    }
    return std::nullopt;
}

void collectSymbols(const Index& index, std::vector<std::string>& out) {
    if (!index) return;
    if (index->op == IndexNode::Op::Symbol) {
        if (std::find(out.begin(), out.end(), index->symbol) == out.end()) out.push_back(index->symbol);
        return;
    }
    collectSymbols(index->lhs, out);
    collectSymbols(index->rhs, out);
}

namespace {

std::string indexText(const Index& index, int outerVars, bool parenthesise) {
    switch (index->op) {
        case IndexNode::Op::Constant: return std::to_string(index->value);
        case IndexNode::Op::Symbol: return index->symbol;
        case IndexNode::Op::Var:
            return outerVars < 0 || index->value < outerVars ? fmt::format("x{}", index->value)
                                                              : fmt::format("r{}", index->value - outerVars);
        case IndexNode::Op::Add: {
            std::string text = indexText(index->lhs, outerVars, false) + " + " + indexText(index->rhs, outerVars, false);
            return parenthesise ? "(" + text + ")" : text;
        }
        case IndexNode::Op::Mul: return indexText(index->lhs, outerVars, true) + " * " + indexText(index->rhs, outerVars, true);
        case IndexNode::Op::FloorDiv:
            return "(" + indexText(index->lhs, outerVars, true) + " / " + indexText(index->rhs, outerVars, true) + ")";
        case IndexNode::Op::Mod:
            return "(" + indexText(index->lhs, outerVars, true) + " % " + indexText(index->rhs, outerVars, true) + ")";
    }
    return "?";
}

}  // namespace

std::string toString(const Index& index) { return indexText(index, -1, false); }

// ---------------------------------------------------------------------------------------------------------

bool isUnary(ElementOp op) {
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) case ElementOp::Name:
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) case ElementOp::Name:
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
        return true;
        default: return false;
    }
}

ElementTyping elementTyping(ElementOp op) {
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case ElementOp::Name: return std::string_view(#integers) == "Keep" ? ElementTyping::Same : ElementTyping::Promote;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case ElementOp::Name: return ElementTyping::typing;
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    }
    return ElementTyping::Promote;
}

bool isComparison(ElementOp op) { return elementTyping(op) == ElementTyping::Bool; }

const char* elementOpName(ElementOp op) {
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case ElementOp::Name:                              \
        return #function;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case ElementOp::Name: return #function;
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    }
    return "?";
}

const std::map<std::string, ElementOp, std::less<>>& elementOpsByName() {
    static const auto ops = [] {
        std::map<std::string, ElementOp, std::less<>> byName;
#define CWB_UNARY_MATH(Name, function, integers, llvm) byName.emplace(#function, ElementOp::Name);
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) byName.emplace(#function, ElementOp::Name);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#define CWB_ELEMENTWISE_ALIAS(alias, function, ...) byName.emplace(#alias, byName.at(#function));
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_ALIAS
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
        return byName;
    }();
    return ops;
}

namespace {
std::shared_ptr<Expr> newExpr(Expr::Kind kind, DType dtype) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->dtype = dtype;
    return e;
}
}  // namespace

ExprPtr load(int buffer, Index index, DType dtype) {
    auto e = newExpr(Expr::Kind::Load, dtype);
    e->buffer = buffer;
    e->index = std::move(index);
    return e;
}

ExprPtr constantFloat(double value, DType dtype) {
    if (!tensor::isFloating(dtype)) return constantInt(static_cast<int64_t>(value), dtype);
    auto e = newExpr(Expr::Kind::Constant, dtype);
    e->number = value;
    return e;
}

ExprPtr constantInt(int64_t value, DType dtype) {
    if (tensor::isFloating(dtype)) return constantFloat(static_cast<double>(value), dtype);
    auto e = newExpr(Expr::Kind::Constant, dtype);
    e->integer = dtype == DType::Bool ? (value != 0) : value;
    return e;
}

ExprPtr indexValue(Index index, DType dtype) {
    auto e = newExpr(Expr::Kind::IndexValue, dtype);
    e->index = std::move(index);
    return e;
}

ExprPtr unary(ElementOp op, ExprPtr a) {
    if (!isUnary(op)) throw std::logic_error(std::string("unary() given binary op ") + elementOpName(op));
    // ~ of a bool is `not`: the integer form (~1 is -2, nonzero) would not give it
    if (op == ElementOp::BitNot && a->dtype == DType::Bool) op = ElementOp::LogicalNot;
    auto e = newExpr(Expr::Kind::Unary, isComparison(op) ? DType::Bool : a->dtype);
    e->op = op;
    e->a = std::move(a);
    return e;
}

ExprPtr binary(ElementOp op, ExprPtr a, ExprPtr b) {
    if (isUnary(op)) throw std::logic_error(std::string("binary() given unary op ") + elementOpName(op));
    auto e = newExpr(Expr::Kind::Binary, isComparison(op) ? DType::Bool : a->dtype);
    e->op = op;
    e->a = std::move(a);
    e->b = std::move(b);
    return e;
}

ExprPtr where(ExprPtr condition, ExprPtr whenTrue, ExprPtr whenFalse) {
    auto e = newExpr(Expr::Kind::Where, whenTrue->dtype);
    e->a = std::move(condition);
    e->b = std::move(whenTrue);
    e->c = std::move(whenFalse);
    return e;
}

ExprPtr cast(ExprPtr a, DType dtype) {
    if (a->dtype == dtype) return a;
    if (a->kind == Expr::Kind::Constant) {
        if (tensor::isFloating(a->dtype)) {
            if (dtype == DType::Bool) return constantInt(a->number != 0, dtype);
            return tensor::isFloating(dtype) ? constantFloat(a->number, dtype) : constantInt(static_cast<int64_t>(a->number), dtype);
        }
        return tensor::isFloating(dtype) ? constantFloat(static_cast<double>(a->integer), dtype) : constantInt(a->integer, dtype);
    }
    auto e = newExpr(Expr::Kind::Cast, dtype);
    e->a = std::move(a);
    return e;
}

ExprPtr reductionValue(int reduction, DType dtype) {
    auto e = newExpr(Expr::Kind::ReductionValue, dtype);
    e->reduction = reduction;
    return e;
}

namespace {

// Pairs already found equal are not compared again, so that DAGs compare in time of their size.
bool exprEqualMemo(const ExprPtr& a, const ExprPtr& b, bool (*sameIndex)(const Index&, const Index&),
                   std::set<std::pair<const Expr*, const Expr*>>& equal) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
    auto same = [&](const ExprPtr& x, const ExprPtr& y) { return exprEqualMemo(x, y, sameIndex, equal); };
    bool result = false;
    switch (a->kind) {
        case Expr::Kind::Load: return a->buffer == b->buffer && sameIndex(a->index, b->index);
        case Expr::Kind::IndexValue: return sameIndex(a->index, b->index);
        case Expr::Kind::Constant: return a->integer == b->integer && std::memcmp(&a->number, &b->number, sizeof(double)) == 0;
        case Expr::Kind::ReductionValue: return a->reduction == b->reduction;
        case Expr::Kind::Unary:
        case Expr::Kind::Cast:
        case Expr::Kind::Binary:
        case Expr::Kind::Where:
            if (equal.count({a.get(), b.get()})) return true;
            result = (a->kind == Expr::Kind::Cast || a->kind == Expr::Kind::Where || a->op == b->op) && same(a->a, b->a) && same(a->b, b->b) &&
                     same(a->c, b->c);
            break;
    }
    if (result) equal.insert({a.get(), b.get()});
    return result;
}

}  // namespace

bool exprEqual(const ExprPtr& a, const ExprPtr& b, bool (*sameIndex)(const Index&, const Index&)) {
    std::set<std::pair<const Expr*, const Expr*>> equal;
    return exprEqualMemo(a, b, sameIndex, equal);
}

const char* reductionOpName(ReductionOp op) {
    switch (op) {
#define CWB_REDUCTION(Name, function, Result) \
    case ReductionOp::Name:                   \
        return #function;
#include "ops/reductions.def"
#undef CWB_REDUCTION
    }
    return "?";
}

DType reductionResultDtype(ReductionOp op, DType accumulator) {
    enum class Result { Value, Position, Truth };
    Result result = Result::Value;
    switch (op) {
#define CWB_REDUCTION(Name, function, Result_) \
    case ReductionOp::Name:                    \
        result = Result::Result_;              \
        break;
#include "ops/reductions.def"
#undef CWB_REDUCTION
    }
    switch (result) {
        case Result::Position: return DType::Int64;
        case Result::Truth: return DType::Bool;
        case Result::Value: break;
    }
    return accumulator;
}

DType Reduction::resultDtype() const { return reductionResultDtype(op, value->dtype); }

std::string Kernel::varName(int number) const {
    return number < outerVarCount() ? fmt::format("x{}", number) : fmt::format("r{}", number - outerVarCount());
}

int Kernel::reductionCount() const {
    int count = 0;
    for (const KernelPass& pass : passes) count += static_cast<int>(pass.reductions.size());
    return count;
}

bool Kernel::hasOuterRangeReductions() const {
    for (const KernelPass& pass : passes)
        for (const Reduction& r : pass.reductions)
            if (r.overOuterRange) return true;
    return false;
}

// ---------------------------------------------------------------------------------------------------------

namespace {

// Prints expressions as trees, except that a subexpression read more than once is printed once, as a named
// temporary (`t0 = ...`) on a line of its own before its first reader: a value squared forty times is forty
// lines, not 2**40 copies.
struct ExprPrinter {
    explicit ExprPrinter(const Kernel& k) : kernel(k), shared(sharedSubexpressions(k)) {}

    const Kernel& kernel;
    const std::unordered_set<const Expr*> shared;
    std::unordered_map<const Expr*, std::string> names;  // temporaries defined in the current pass
    int nextName = 0;
    std::string definitions;  // lines of temporaries the statement being printed needs first

    std::string text(const ExprPtr& e) {
        if (auto found = names.find(e.get()); found != names.end()) return found->second;
        std::string t = inlineText(e);
        if (!shared.count(e.get())) return t;
        std::string name = fmt::format("t{}", nextName++);
        definitions += fmt::format("    {} = {}\n", name, t);
        names.emplace(e.get(), name);
        return name;
    }

    std::string inlineText(const ExprPtr& e) {
        const int outers = kernel.outerVarCount();
        switch (e->kind) {
            case Expr::Kind::Load: return fmt::format("{}[{}]", kernel.buffers.at(static_cast<size_t>(e->buffer)).name, indexText(e->index, outers, false));
            case Expr::Kind::Constant:
                return tensor::isFloating(e->dtype) ? fmt::format("{}", e->number) : fmt::format("{}", e->integer);
            case Expr::Kind::IndexValue: return fmt::format("index({})", indexText(e->index, outers, false));
            case Expr::Kind::Unary: return fmt::format("{}({})", elementOpName(e->op), text(e->a));
            case Expr::Kind::Binary: {
                std::string a = text(e->a);
                return fmt::format("{}({}, {})", elementOpName(e->op), a, text(e->b));
            }
            case Expr::Kind::Where: {
                std::string a = text(e->a), b = text(e->b);
                return fmt::format("where({}, {}, {})", a, b, text(e->c));
            }
            case Expr::Kind::Cast: return fmt::format("to_{}({})", tensor::dtypeName(e->dtype), text(e->a));
            case Expr::Kind::ReductionValue: return fmt::format("red{}", e->reduction);
        }
        return "?";
    }

    // A statement, after the temporaries it is the first to need.
    void statement(std::string line, std::string& out) {
        out += definitions + line;
        definitions.clear();
    }

    void stores(const std::vector<Store>& list, std::string& out) {
        for (const Store& s : list) {
            std::string value = text(s.value);
            statement(fmt::format("    {}[{}] = {}\n", kernel.buffers.at(static_cast<size_t>(s.buffer)).name,
                                  indexText(s.index, kernel.outerVarCount(), false), value), out);
        }
    }
};

}  // namespace

std::string rangesText(const std::vector<Index>& ranges) {
    std::string text;
    for (const Index& r : ranges) text += (text.empty() ? "" : ", ") + toString(r);
    return "[" + text + "]";
}

void forEachExprOnce(const ExprPtr& root, const std::function<void(const Expr&)>& visit, std::unordered_set<const Expr*>& seen) {
    std::vector<const Expr*> pending;
    if (root) pending.push_back(root.get());
    while (!pending.empty()) {
        const Expr* e = pending.back();
        pending.pop_back();
        if (!seen.insert(e).second) continue;
        visit(*e);
        for (const ExprPtr& operand : {e->c, e->b, e->a})  // a first: the order of a recursive walk
            if (operand) pending.push_back(operand.get());
    }
}

std::unordered_set<const Expr*> sharedSubexpressions(const Kernel& kernel) {
    std::unordered_map<const Expr*, int> readers;  // each node's readers: operand slots of distinct nodes, and roots
    std::unordered_set<const Expr*> seen;
    auto countOperands = [&](const Expr& e) {
        for (const ExprPtr& operand : {e.a, e.b, e.c})
            if (operand) ++readers[operand.get()];
    };
    auto walk = [&](const ExprPtr& root) {
        if (!root) return;
        ++readers[root.get()];
        forEachExprOnce(root, countOperands, seen);
    };
    for (const KernelPass& pass : kernel.passes) {
        for (const Reduction& r : pass.reductions) walk(r.value);
        for (const Store& s : pass.stores) walk(s.value);
    }
    for (const Store& s : kernel.finalStores) walk(s.value);
    std::unordered_set<const Expr*> shared;
    for (const auto& [e, count] : readers)
        if (count > 1 && e->kind != Expr::Kind::Load && e->kind != Expr::Kind::Constant && e->kind != Expr::Kind::IndexValue &&
            e->kind != Expr::Kind::ReductionValue)
            shared.insert(e);
    return shared;
}

std::set<int> loadedBuffers(const ExprPtr& root) {
    std::set<int> loads;
    std::unordered_set<const Expr*> seen;
    forEachExprOnce(root, [&](const Expr& e) { if (e.kind == Expr::Kind::Load) loads.insert(e.buffer); }, seen);
    return loads;
}

std::string kernelText(const Kernel& kernel) {
    if (kernel.isCombo()) {
        std::string text = fmt::format("kernel {}: a combo of {} parts, one after another over outer [{}]\n", kernel.name, kernel.parts.size(),
                                       toString(kernel.outerRanges.at(0)));
        for (const ComboPart& part : kernel.parts) text += kernelText(part.kernel);
        return text;
    }
    std::string text = fmt::format("kernel {}(", kernel.name);
    for (size_t i = 0; i < kernel.buffers.size(); ++i)
        text += fmt::format("{}{}: {}{}", i ? ", " : "", kernel.buffers[i].name, tensor::dtypeName(kernel.buffers[i].dtype), kernel.buffers[i].aliased ? " (aliased)" : "");
    for (const std::string& symbol : kernel.symbols) text += ", " + symbol;
    text += fmt::format(")\n  outer {}", rangesText(kernel.outerRanges));
    if (kernel.isReduction()) text += fmt::format(" reduce {}", rangesText(kernel.reductionRanges));
    text += "\n";
    ExprPrinter printer(kernel);
    for (const KernelPass& pass : kernel.passes) {
        text += pass.overReductionRange ? "  pass over reduction range:\n" : "  pass over outer range:\n";
        printer.names.clear();  // a temporary holds a value at one point of its pass
        for (const Reduction& r : pass.reductions) {
            std::string value = printer.text(r.value);
            printer.statement(fmt::format("    red{} = {}({}){}\n", r.id, reductionOpName(r.op), value, r.overOuterRange ? " over the outer range" : ""), text);
        }
        printer.stores(pass.stores, text);
    }
    if (!kernel.finalStores.empty()) {
        text += "  after every outer point, over reduction range:\n";
        printer.names.clear();
        printer.stores(kernel.finalStores, text);
    }
    return text;
}

}  // namespace eng::inductor
