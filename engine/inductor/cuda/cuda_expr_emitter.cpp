// Expression emission: one named temporary per IR node (shared nodes emitted once), math that rounds as the
// reference interpreter does (16-bit results rounded per op, no mul+add contraction, accurate libm calls),
// plus the small text pieces every strategy needs (signature, IR comment, variable decoding).
#include <cctype>
#include <cmath>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

using tensor::isFloating;

std::string floatLiteral(double value, DType dtype) {
    const bool single = dtype != DType::Float64;
    if (std::isnan(value)) return single ? "cwb_nan_f()" : "cwb_nan_d()";
    if (std::isinf(value)) return std::string(value < 0 ? "-" : "") + (single ? "cwb_inf_f()" : "cwb_inf_d()");
    std::string text;
    if (dtype == DType::Float64) text = fmt::format("{}", value);
    else {
        // The constant as the interpreter sees it: rounded to its dtype.
        float rounded = static_cast<float>(value);
        if (dtype == DType::Float16) rounded = static_cast<float>(tensor::Half(rounded));
        if (dtype == DType::BFloat16) rounded = static_cast<float>(tensor::BFloat16(rounded));
        text = fmt::format("{}", rounded);
    }
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return single ? text + "f" : text;
}

std::string intLiteral(int64_t value, DType dtype) {
    if (dtype == DType::Bool) return value ? "true" : "false";
    if (value == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
    if (dtype == DType::Int64) return fmt::format("{}LL", value);
    return fmt::format("({}){}", storageType(dtype), value);
}

std::string ExprEmitter::index(const Index& index) const {
    switch (index->op) {
        case IndexNode::Op::Constant: return std::to_string(index->value);
        case IndexNode::Op::Symbol: return indexType_ == "int" ? "(int)" + index->symbol : index->symbol;
        case IndexNode::Op::Var: return kernel_.varName(static_cast<int>(index->value));
        case IndexNode::Op::Add: return "(" + this->index(index->lhs) + " + " + this->index(index->rhs) + ")";
        case IndexNode::Op::Mul: return this->index(index->lhs) + " * " + this->index(index->rhs);
        // Operands are non-negative wherever kernels use them, so C's / and % are Python's // and %.
        case IndexNode::Op::FloorDiv: return "(" + this->index(index->lhs) + " / " + this->index(index->rhs) + ")";
        case IndexNode::Op::Mod: return "(" + this->index(index->lhs) + " % " + this->index(index->rhs) + ")";
    }
    return "0";
}

namespace {

std::string roundedTo(DType dtype, const std::string& value) {
    if (dtype == DType::Float16) return "cwb_round_half(" + value + ")";
    if (dtype == DType::BFloat16) return "cwb_round_bf16(" + value + ")";
    return value;
}

// An integer result of dtype: wrapped as the interpreter's wrapTo (bool: != 0).
std::string wrappedTo(DType dtype, const std::string& value) {
    if (dtype == DType::Bool) return "((" + value + ") != 0)";
    return "(" + storageType(dtype) + ")(" + value + ")";
}

// The device function of a unary math op: sinf(a) / sin(a), or for the trigonometric functions the prelude's
// cwb_sin(a), which CudaTuning::trigCalls compiles out of line (cuda_prelude.cpp).
std::string mathCall(std::string_view function, bool single, const std::string& a) {
    if (function == "sin" || function == "cos" || function == "tan") return fmt::format("cwb_{}({})", function, a);
    return fmt::format("{}{}({})", function, single ? "f" : "", a);
}

}  // namespace

std::string ExprEmitter::unaryText(const Expr& e, const std::string& a) {
    const DType t = e.a->dtype;
    if (isFloating(t)) {
        const bool single = t != DType::Float64;
        switch (e.op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case ElementOp::Name:                              \
        return roundedTo(e.dtype, mathCall(#function, single, a));
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
            default: break;
        }
    } else {
        switch (e.op) {
            case ElementOp::Floor:  // the rounding functions keep integers (ops/unary_math.def's Keep)
            case ElementOp::Ceil:
            case ElementOp::Trunc: return a;
            default: break;
        }
    }
    return formText(e, {a});
}

std::string ExprEmitter::binaryText(const Expr& e, const std::string& a, const std::string& b) { return formText(e, {a, b}); }

// An op of ops/elementwise.def: a call of its device function (cuda_prelude.cpp), in float for float and 16-bit
// operands, in double for double, in cwb_i64 for integral and bool ones; the result rounded or wrapped to its dtype.
std::string ExprEmitter::formText(const Expr& e, std::initializer_list<std::string> operands) {
    const DType t = e.a->dtype;
    const bool isFloat = isFloating(t);
    const ElementTyping typing = elementTyping(e.op);
    if (isFloat ? typing == ElementTyping::Integral : typing == ElementTyping::Promote || typing == ElementTyping::Floating)
        throw std::logic_error(fmt::format("CUDA codegen: no {} form of {}", isFloat ? "float" : "integer", elementOpName(e.op)));
    std::string args;
    for (const std::string& operand : operands) args += (args.empty() ? "" : ", ") + (isFloat ? operand : "(cwb_i64)" + operand);
    const std::string call = isFloat ? fmt::format("cwb_forms::cwb_f_{}<{}>({})", elementOpName(e.op), t == DType::Float64 ? "double" : "float", args)
                                     : fmt::format("cwb_forms::cwb_i_{}({})", elementOpName(e.op), args);
    if (isComparison(e.op)) return call;
    return isFloat ? roundedTo(e.dtype, call) : wrappedTo(e.dtype, call);
}

std::string ExprEmitter::castText(const Expr& e, const std::string& a) {
    const DType from = e.a->dtype, to = e.dtype;
    const bool fromFloat = isFloating(from), toFloat = isFloating(to);
    if (fromFloat && toFloat) {
        if (to == DType::Float64) return "(double)" + a;
        if (from == DType::Float64) return roundedTo(to, "(float)" + a);
        return roundedTo(to, a);  // float-held values: only the rounding changes
    }
    if (!fromFloat && toFloat) {
        // Through double, as the interpreter: int64 -> double -> float can differ from int64 -> float. Bools and
        // narrower ints are exact in a float's one rounding, and go straight: ptxas 13.0 at -O3 gave lane 3 of a
        // vector lane 1's value for (float)(double)bool in a vectorized kernel with a scalar tail (a wrong
        // masked_fill_ result, tests/fuzz/regressions_cuda/masked_fill_after_clamp_of_cat_cuda.py).
        if (to == DType::Float64) return "(double)" + a;
        if (from != DType::Int64) return roundedTo(to, "(float)" + a);
        return roundedTo(to, "(float)(double)" + a);
    }
    if (fromFloat) {
        if (to == DType::Bool) return fmt::format("({} != 0)", a);
        return wrappedTo(to, fmt::format("cwb_f2i((double){})", a));
    }
    return wrappedTo(to, a);
}

std::string ExprEmitter::emit(const Expr& e) {
    switch (e.kind) {
        case Expr::Kind::Load: {
            if (loadOverride)
                if (auto text = loadOverride(e)) return *text;
            return fmt::format("cwb_load({}[{}])", bufferName(kernel_, e.buffer), index(e.index));
        }
        case Expr::Kind::IndexValue: {
            const std::string v = "(cwb_i64)(" + index(e.index) + ")";
            if (e.dtype == DType::Float64) return "(double)" + v;
            if (isFloating(e.dtype)) return roundedTo(e.dtype, "(float)(double)" + v);
            return wrappedTo(e.dtype, v);
        }
        case Expr::Kind::Unary: return unaryText(e, value(e.a));
        case Expr::Kind::Binary: {
            std::string a = value(e.a);
            return binaryText(e, a, value(e.b));
        }
        case Expr::Kind::Where: {
            std::string condition = value(e.a);
            if (!readsMemory(*e.b) && !readsMemory(*e.c)) {
                std::string whenTrue = value(e.b);
                return fmt::format("{} ? {} : {}", condition, whenTrue, value(e.c));
            }
            // A side that loads runs only where it is taken, as Triton's masked loads: a cat's where-chain read every
            // input at every element (three times a qkv gradient's bytes), a pad read past its input's edge. Values
            // named inside a side stay there.
            const std::string result = fmt::format("tmp{}", counter_++);
            line(fmt::format("{} {};", computeType(e.dtype), result));
            auto side = [&](const ExprPtr& branch, const char* head) {
                line(head);
                const auto named = names_;
                indent_ += "  ";
                const std::string v = value(branch);
                line(fmt::format("{} = {};", result, v));
                indent_.resize(indent_.size() - 2);
                names_ = named;
            };
            side(e.b, fmt::format("if ({}) {{", condition).c_str());
            side(e.c, "} else {");
            line("}");
            return result;
        }
        case Expr::Kind::Cast: return castText(e, value(e.a));
        default: break;
    }
    throw std::logic_error("CUDA codegen: unexpected expression kind");
}

bool ExprEmitter::readsMemory(const Expr& e) {
    std::unordered_set<const Expr*> clean;  // walked and found to read nothing: a shared subtree is walked once
    const std::function<bool(const Expr&)> reads = [&](const Expr& x) -> bool {
        if (x.kind == Expr::Kind::Constant || x.kind == Expr::Kind::ReductionValue || names_.count(&x) || clean.count(&x)) return false;
        if (x.kind == Expr::Kind::Load) return !(loadOverride && loadOverride(x));  // vector lanes are registers
        if (x.kind == Expr::Kind::Where && whereTaken)
            if (const std::optional<bool> taken = whereTaken(x)) return reads(*taken ? *x.b : *x.c);
        for (const ExprPtr* operand : {&x.a, &x.b, &x.c})
            if (*operand && reads(**operand)) return true;
        clean.insert(&x);
        return false;
    };
    return reads(e);
}

std::string ExprEmitter::value(const ExprPtr& e) {
    if (e->kind == Expr::Kind::Constant)
        return isFloating(e->dtype) ? floatLiteral(e->number, e->dtype) : intLiteral(e->integer, e->dtype);
    if (e->kind == Expr::Kind::ReductionValue) return fmt::format("red{}", e->reduction);
    if (auto found = names_.find(e.get()); found != names_.end()) return found->second;
    if (e->kind == Expr::Kind::Where && whereTaken)  // decided by the code around: the taken side's value
        if (const std::optional<bool> taken = whereTaken(*e)) return value(*taken ? e->b : e->c);
    std::string text = emit(*e);
    std::string name = fmt::format("tmp{}", counter_++);
    line(fmt::format("const {} {} = {};", computeType(e->dtype), name, text));
    names_.emplace(e.get(), name);
    return name;
}

std::string ExprEmitter::storeValue(const Store& s) {
    const std::string v = value(s.value);
    const DType dtype = kernel_.buffers.at(static_cast<size_t>(s.buffer)).dtype;
    if (dtype == DType::Float16) return "cwb_to_half(" + v + ")";
    if (dtype == DType::BFloat16) return "cwb_to_bf16(" + v + ")";
    return v;
}

void ExprEmitter::store(const Store& s, const std::string& target) {
    const std::string v = storeValue(s);
    const std::string where =
        target.empty() ? fmt::format("{}[{}]", bufferName(kernel_, s.buffer), index(s.index)) : target;
    line(fmt::format("{} = {};", where, v));
}

std::string bufferName(const Kernel& kernel, int buffer) {
    // Locals of the generated code, and anything that is not a plain identifier, get a prefixed name.
    static const std::regex generated("(tmp|acc|red|x|r|s)[0-9]+|numel|aligned|vectors|chunk|vec|base|flat|k|u|outer|outer_count|"
                                      "reduce_count|group|active|rindex|scratch|.*_rest[0-9]+|cwb_.*|[0-9].*");
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
    const std::string& name = kernel.buffers.at(static_cast<size_t>(buffer)).name;
    if (std::regex_match(name, identifier) && !std::regex_match(name, generated)) return name;
    std::string safe;
    for (char ch : name) safe += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return fmt::format("in{}_{}", buffer, safe);
}

std::string irComment(const Kernel& kernel) {
    std::istringstream lines(kernelText(kernel));
    std::string text, l;
    while (std::getline(lines, l)) text += "// " + l + "\n";
    return text;
}

std::string signature(const Kernel& kernel, int threads) {
    std::string text = fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(", threads, kernel.name);
    for (size_t i = 0; i < kernel.buffers.size(); ++i) {
        const KernelBuffer& b = kernel.buffers[i];
        // const __restrict__ inputs let the compiler use the read-only (__ldg) path; an aliased buffer (an input
        // stored in place) is neither, as its memory is written through another parameter in the same kernel.
        const char* qualifier = b.aliased ? "" : b.written ? "" : "const ";
        text += fmt::format("{}{}{}*{} {}", i ? ", " : "", qualifier, storageType(b.dtype), b.aliased ? "" : " __restrict__",
                            bufferName(kernel, static_cast<int>(i)));
    }
    for (const std::string& symbol : kernel.symbols) text += fmt::format(", long long {}", symbol);
    return text + ")";
}

std::string decodeVars(const Kernel& kernel, const std::vector<Index>& ranges, int first, const std::string& flat,
                       const std::string& indexType, const std::string& indent, const ExprEmitter& emitter) {
    std::string text;
    if (ranges.size() == 1) return fmt::format("{}const {} {} = {};\n", indent, indexType, kernel.varName(first), flat);
    std::string rest = flat;
    for (size_t d = ranges.size(); d-- > 0;) {
        const std::string var = kernel.varName(first + static_cast<int>(d));
        const std::string size = emitter.index(ranges[d]);
        if (d == 0) text += fmt::format("{}const {} {} = {};\n", indent, indexType, var, rest);
        else text += fmt::format("{}const {} {} = {} % {};\n", indent, indexType, var, rest, size);
        if (d > 0) {
            const std::string next = fmt::format("{}_rest{}", flat, d);
            text += fmt::format("{}const {} {} = {} / {};\n", indent, indexType, next, rest, size);
            rest = next;
        }
    }
    return text;
}

}  // namespace eng::inductor::cuda::detail
