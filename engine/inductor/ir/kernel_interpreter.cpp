// The reference semantics of the kernel IR: runs a kernel one element at a time on host memory, rounding
// every result to its dtype as generated code does. Code generators are tested against it.
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "inductor/ir/kernel_ir.h"
#include "tensor/half.h"

namespace eng::inductor {

namespace {

// A value of any dtype: floating dtypes use `f`, integral and bool ones `i`.
struct Element {
    double f = 0;
    int64_t i = 0;
};

bool floating(DType d) { return tensor::isFloating(d); }

double roundTo(DType dtype, double value) {
    switch (dtype) {
        case DType::Float32: return static_cast<float>(value);
        case DType::Float16: return static_cast<float>(tensor::Half(static_cast<float>(value)));
        case DType::BFloat16: return static_cast<float>(tensor::BFloat16(static_cast<float>(value)));
        default: return value;
    }
}

int64_t wrapTo(DType dtype, int64_t value) {
    switch (dtype) {
        case DType::Bool: return value != 0;
        case DType::UInt8: return static_cast<uint8_t>(value);
        case DType::Int8: return static_cast<int8_t>(value);
        case DType::Int16: return static_cast<int16_t>(value);
        case DType::Int32: return static_cast<int32_t>(value);
        default: return value;
    }
}

Element readElement(const void* base, DType dtype, int64_t offset) {
    Element e;
    tensor::dispatchDType(dtype, [&]<typename T>() {
        T v = static_cast<const T*>(base)[offset];
        if constexpr (std::is_same_v<T, tensor::Half> || std::is_same_v<T, tensor::BFloat16>) e.f = static_cast<float>(v);
        else if constexpr (std::is_floating_point_v<T>) e.f = v;
        else e.i = static_cast<int64_t>(v);
    });
    return e;
}

void writeElement(void* base, DType dtype, int64_t offset, Element e) {
    tensor::dispatchDType(dtype, [&]<typename T>() {
        T* p = static_cast<T*>(base) + offset;
        if constexpr (std::is_same_v<T, tensor::Half> || std::is_same_v<T, tensor::BFloat16>) *p = T(static_cast<float>(e.f));
        else if constexpr (std::is_floating_point_v<T>) *p = static_cast<T>(e.f);
        else *p = static_cast<T>(e.i);
    });
}

// The helpers that ops/elementwise.def's forms may call, on the interpreter's scalars: double for floating
// dtypes, int64 for integral ones (this library builds with -fwrapv, so int64 arithmetic wraps as generated code
// does).
template <typename T>
T select(bool condition, T whenTrue, T whenFalse) {
    return condition ? whenTrue : whenFalse;
}
double maximum(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b); }
double minimum(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::min(a, b); }
double floordiv(double a, double b) { return std::floor(a / b); }
double pymod(double a, double b) {
    const double r = std::fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
int64_t nonzeroDivisor(int64_t b) {
    if (b == 0) throw std::runtime_error("ZeroDivisionError");
    return b;
}
int64_t idiv(int64_t a, int64_t b) { return nonzeroDivisor(b) == -1 ? -a : a / b; }
int64_t ifloordiv(int64_t a, int64_t b) {
    if (nonzeroDivisor(b) == -1) return -a;
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t imod(int64_t a, int64_t b) {
    if (nonzeroDivisor(b) == -1) return 0;
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
int64_t irem(int64_t a, int64_t b) { return nonzeroDivisor(b) == -1 ? 0 : a % b; }
int64_t ipow(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 == 0 ? 1 : -1) : 0;
    int64_t result = 1;
    for (int64_t k = 0; k < b; ++k) result *= a;
    return result;
}
int64_t ishl(int64_t a, int64_t b) { return b < 0 || b >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b); }
int64_t ishr(int64_t a, int64_t b) { return b < 0 || b >= 64 ? (a < 0 ? -1 : 0) : a >> b; }
using std::atan2, std::fabs, std::fmod, std::pow, std::rint;
#define CWB_UNARY_MATH(Name, function, integers, llvm) using std::function;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH

// An op of ops/unary_math.def or ops/elementwise.def on floating operands (b unused for unary ops); predicates
// give 0 or 1.
double floatForm(ElementOp op, double a, [[maybe_unused]] double b) {
    using T = double;
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case ElementOp::Name:                              \
        return std::function(a);
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...)                   \
    case ElementOp::Name:                                                                       \
        if (ElementTyping::typing == ElementTyping::Integral) break;                            \
        return static_cast<double>(floatForm);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    }
    throw std::logic_error(std::string("no float form of ") + elementOpName(op));
}

// The same on integral operands, in int64 (bool operands are 0/1).
int64_t integerForm(ElementOp op, int64_t a, [[maybe_unused]] int64_t b) {
    using T = int64_t;
    switch (op) {
        case ElementOp::Floor:  // the rounding functions keep integers (ops/unary_math.def's Keep)
        case ElementOp::Ceil:
        case ElementOp::Trunc: return a;
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case ElementOp::Name:                                                     \
        if (ElementTyping::typing == ElementTyping::Promote) break;           \
        if (ElementTyping::typing == ElementTyping::Floating) break;          \
        return static_cast<int64_t>(integerForm);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
        default: break;
    }
    throw std::logic_error(std::string("no integer form of ") + elementOpName(op));
}

struct Interpreter {
    Interpreter(const Kernel& k, std::span<void* const> b, const SymbolValues& s) : kernel(k), buffers(b), symbols(s) {
        for (const Expr* e : sharedSubexpressions(kernel)) sharedSlots.emplace(e, sharedSlots.size());
        sharedValues.assign(sharedSlots.size(), {0, Element{}});
    }

    const Kernel& kernel;
    std::span<void* const> buffers;
    const SymbolValues& symbols;
    std::vector<int64_t> vars;
    std::map<int, Element> finished;
    // Subexpressions read more than once are evaluated once per statement and point (a DAG walked as a tree
    // costs exponential time): their slot holds the value and the statement it was computed for.
    std::unordered_map<const Expr*, size_t> sharedSlots;
    std::vector<std::pair<uint64_t, Element>> sharedValues;
    uint64_t statement = 0;

    // A statement's value at the current point.
    Element evalStatement(const ExprPtr& e) {
        ++statement;
        return eval(e);
    }

    Element eval(const ExprPtr& e) {
        if (sharedSlots.empty() || e->kind == Expr::Kind::Load || e->kind == Expr::Kind::Constant) return evalNode(e);
        auto slot = sharedSlots.find(e.get());
        if (slot == sharedSlots.end()) return evalNode(e);
        auto& [computedFor, value] = sharedValues[slot->second];
        if (computedFor != statement) {
            value = evalNode(e);
            computedFor = statement;
        }
        return value;
    }

    Element evalNode(const ExprPtr& e) {
        Element out;
        switch (e->kind) {
            case Expr::Kind::Load: {
                int64_t offset = evaluate(e->index, vars, symbols);
                return readElement(buffers[static_cast<size_t>(e->buffer)], e->dtype, offset);
            }
            case Expr::Kind::Constant:
                if (floating(e->dtype)) out.f = roundTo(e->dtype, e->number);
                else out.i = e->integer;
                return out;
            case Expr::Kind::IndexValue: {
                int64_t v = evaluate(e->index, vars, symbols);
                if (floating(e->dtype)) out.f = roundTo(e->dtype, static_cast<double>(v));
                else out.i = wrapTo(e->dtype, v);
                return out;
            }
            case Expr::Kind::Unary:
            case Expr::Kind::Binary: {
                const Element a = eval(e->a), b = e->kind == Expr::Kind::Binary ? eval(e->b) : Element{};
                if (floating(e->a->dtype)) {
                    const double v = floatForm(e->op, a.f, b.f);
                    if (isComparison(e->op)) out.i = v != 0;
                    else out.f = roundTo(e->dtype, v);
                } else {
                    out.i = wrapTo(e->dtype, integerForm(e->op, a.i, b.i));
                }
                return out;
            }
            case Expr::Kind::Where: return eval(e->a).i ? eval(e->b) : eval(e->c);
            case Expr::Kind::Cast: {
                Element a = eval(e->a);
                const bool from = floating(e->a->dtype), to = floating(e->dtype);
                if (from && to) out.f = roundTo(e->dtype, a.f);
                else if (!from && to) out.f = roundTo(e->dtype, static_cast<double>(a.i));
                else if (from && !to) {
                    if (e->dtype == DType::Bool) out.i = a.f != 0;
                    else out.i = wrapTo(e->dtype, (a.f > -9.3e18 && a.f < 9.3e18) ? static_cast<int64_t>(a.f) : INT64_MIN);
                } else out.i = wrapTo(e->dtype, a.i);
                return out;
            }
            case Expr::Kind::ReductionValue: return finished.at(e->reduction);
        }
        return out;
    }

    void runStores(const std::vector<Store>& stores) {
        for (const Store& s : stores) {
            Element v = evalStatement(s.value);
            writeElement(buffers[static_cast<size_t>(s.buffer)], kernel.buffers[static_cast<size_t>(s.buffer)].dtype,
                         evaluate(s.index, vars, symbols), v);
        }
    }

    // Walks every point of `ranges` starting at variable `first`, calling body at each.
    template <typename Body>
    void forEachPoint(const std::vector<Index>& ranges, int first, Body&& body) {
        std::vector<int64_t> extents;
        int64_t total = 1;
        for (const Index& r : ranges) {
            extents.push_back(evaluate(r, vars, symbols));
            total *= extents.back();
        }
        for (int64_t flat = 0; flat < total; ++flat) {
            int64_t rest = flat;
            for (size_t d = ranges.size(); d-- > 0;) {
                vars[static_cast<size_t>(first) + d] = rest % extents[d];
                rest /= extents[d];
            }
            body(flat);
        }
    }

    struct Accumulator {
        Element value;
        int64_t position = 0;
        bool started = false;
    };

    static void accumulate(Accumulator& a, const Reduction& r, Element v, int64_t flat) {
        const bool isFloat = floating(r.value->dtype);
        if (!a.started) {
            a.value = v;
            a.position = flat;
            a.started = true;
            return;
        }
        switch (r.op) {
            case ReductionOp::Sum:
                if (isFloat) a.value.f = roundTo(r.value->dtype, a.value.f + v.f);
                else a.value.i = wrapTo(r.value->dtype, a.value.i + v.i);
                break;
            case ReductionOp::Prod:
                if (isFloat) a.value.f = roundTo(r.value->dtype, a.value.f * v.f);
                else a.value.i = wrapTo(r.value->dtype, a.value.i * v.i);
                break;
            case ReductionOp::Max:
            case ReductionOp::Min:
                a.value = isFloat ? Element{floatForm(r.op == ReductionOp::Max ? ElementOp::Maximum : ElementOp::Minimum, a.value.f, v.f), 0}
                                  : Element{0, integerForm(r.op == ReductionOp::Max ? ElementOp::Maximum : ElementOp::Minimum, a.value.i, v.i)};
                break;
            case ReductionOp::ArgMax:
            case ReductionOp::ArgMin: {
                const bool wantMax = r.op == ReductionOp::ArgMax;
                bool better;
                if (isFloat) {
                    if (std::isnan(a.value.f)) better = false;
                    else if (std::isnan(v.f)) better = true;
                    else better = wantMax ? v.f > a.value.f : v.f < a.value.f;
                } else {
                    better = wantMax ? v.i > a.value.i : v.i < a.value.i;
                }
                if (better) {
                    a.value = v;
                    a.position = flat;
                }
                break;
            }
            case ReductionOp::Any: a.value.i = a.value.i || v.i; break;
            case ReductionOp::All: a.value.i = a.value.i && v.i; break;
        }
    }

    static Element result(const Accumulator& a, const Reduction& r) {
        Element result = a.value;
        if (!a.started) {  // empty range: the identity
            const bool isFloat = floating(r.value->dtype);
            switch (r.op) {
                case ReductionOp::Sum: break;
                case ReductionOp::Prod: result = isFloat ? Element{1, 0} : Element{0, 1}; break;
                case ReductionOp::All: result.i = 1; break;
                case ReductionOp::Any: break;
                default: throw std::runtime_error(std::string(reductionOpName(r.op)) + " of an empty range");
            }
        }
        if (r.op == ReductionOp::ArgMax || r.op == ReductionOp::ArgMin) result = Element{0, a.position};
        return result;
    }

    // Reductions over the outer range: one accumulator per point of the reduction range, kept across outer points.
    std::map<int, std::vector<Accumulator>> acrossOuter;

    void runReductionPass(const KernelPass& pass) {
        std::vector<Accumulator> acc(pass.reductions.size());
        forEachPoint(kernel.reductionRanges, kernel.outerVarCount(), [&](int64_t flat) {
            runStores(pass.stores);
            for (size_t k = 0; k < pass.reductions.size(); ++k) {
                const Reduction& r = pass.reductions[k];
                if (!r.overOuterRange) {
                    accumulate(acc[k], r, evalStatement(r.value), flat);
                    continue;
                }
                std::vector<Accumulator>& points = acrossOuter[r.id];
                if (points.size() <= static_cast<size_t>(flat)) points.resize(static_cast<size_t>(flat) + 1);
                accumulate(points[static_cast<size_t>(flat)], r, evalStatement(r.value), flat);
            }
        });
        for (size_t k = 0; k < pass.reductions.size(); ++k)
            if (!pass.reductions[k].overOuterRange) finished[pass.reductions[k].id] = result(acc[k], pass.reductions[k]);
    }

    void run() {
        vars.assign(kernel.outerRanges.size() + kernel.reductionRanges.size(), 0);
        forEachPoint(kernel.outerRanges, 0, [&](int64_t) {
            finished.clear();
            for (const KernelPass& pass : kernel.passes) {
                if (pass.overReductionRange) runReductionPass(pass);
                else runStores(pass.stores);
            }
        });
        if (kernel.finalStores.empty()) return;
        finished.clear();
        forEachPoint(kernel.reductionRanges, kernel.outerVarCount(), [&](int64_t flat) {
            for (const KernelPass& pass : kernel.passes)
                for (const Reduction& r : pass.reductions) {
                    if (!r.overOuterRange) continue;
                    const std::vector<Accumulator>& points = acrossOuter[r.id];
                    finished[r.id] = result(static_cast<size_t>(flat) < points.size() ? points[static_cast<size_t>(flat)] : Accumulator{}, r);
                }
            runStores(kernel.finalStores);
        });
    }
};

}  // namespace

void interpretKernel(const Kernel& kernel, std::span<void* const> buffers, const SymbolValues& symbols) {
    if (buffers.size() != kernel.buffers.size()) throw std::logic_error("interpretKernel: wrong number of buffers");
    if (kernel.isCombo()) {
        for (const ComboPart& part : kernel.parts) {
            std::vector<void*> partBuffers;
            for (int b : part.buffers) partBuffers.push_back(buffers[static_cast<size_t>(b)]);
            interpretKernel(part.kernel, partBuffers, symbols);
        }
        return;
    }
    Interpreter(kernel, buffers, symbols).run();
}

}  // namespace eng::inductor
