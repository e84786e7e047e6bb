// Every ElementOp, cast and dtype through the CPU code generator, each compared with the interpreter: pointwise
// kernels over a [5, s0] outer range (second input broadcast along rows), run whole and split into odd pieces.
#include <gtest/gtest.h>

#include <functional>

#include "../sample_kernels.h"
#include "cpu_test_support.h"

namespace eng::inductor::cpu {
namespace {

using namespace testing;
using samples::c;
using samples::x;

const DType kFloats[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};
const DType kInts[] = {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64};

Index at() { return x(0) * indexSymbol("s0") + x(1); }

/// out[x0, x1] = body(in0[x0, x1], in1[x1]) over [5, s0].
Kernel pointwise(const std::string& name, std::vector<DType> inputs, DType out, const std::function<ExprPtr(std::vector<ExprPtr>)>& body) {
    Kernel k;
    k.name = name;
    k.symbols = {"s0"};
    k.outerRanges = {c(5), indexSymbol("s0")};
    std::vector<ExprPtr> loads;
    for (size_t i = 0; i < inputs.size(); ++i) {
        k.buffers.push_back(samples::buffer("in" + std::to_string(i), inputs[i], true, false));
        loads.push_back(load(static_cast<int>(i), i == 0 ? at() : x(1), inputs[i]));
    }
    k.buffers.push_back(samples::buffer("out", out, false, true));
    k.passes = {KernelPass{false, {}, {Store{static_cast<int>(inputs.size()), at(), body(loads)}}}};
    return k;
}

/// Compiles all kernels in one module and checks each at several row lengths and range splits.
void checkAll(const std::vector<Kernel>& kernels, const std::function<Tolerance(const Kernel&)>& tolerance, bool nonZeroInts = false,
              double scale = 4) {
    auto module = compileCpuKernels(kernels);
    for (size_t i = 0; i < kernels.size(); ++i) {
        for (int64_t s0 : {3, 37}) {
            SymbolValues symbols{{"s0", s0}};
            Buffers in = randomBuffers(kernels[i], symbols, static_cast<uint32_t>(i * 31 + s0), scale, true, nonZeroInts);
            for (int pieces : {1, 4}) checkAgainstInterpreter(kernels[i], *module, i, symbols, in, tolerance(kernels[i]), kernels[i].name, pieces);
        }
    }
}

Tolerance mathTolerance(const Kernel& k) {
    // libm/libmvec float functions are within a few ulps; half types see at most a 1-ulp flip at a rounding tie.
    const DType out = k.buffers.back().dtype;
    if (tensor::isReducedFloat(out)) return {1, 0};
    return {4, 0};
}

TEST(CpuCodegenOps, FloatUnaryOps) {
    std::vector<Kernel> kernels;
    for (int op = static_cast<int>(ElementOp::Neg); op <= static_cast<int>(ElementOp::Sign); ++op) {
        const auto e = static_cast<ElementOp>(op);
        if (e == ElementOp::LogicalNot || e == ElementOp::BitNot) continue;
        for (DType d : kFloats)
            kernels.push_back(pointwise(std::string(elementOpName(e)) + "_" + std::string(dtypeName(d)), {d}, d,
                                        [e](auto in) { return unary(e, in[0]); }));
    }
    checkAll(kernels, mathTolerance);
}

TEST(CpuCodegenOps, FloatPredicatesGiveBool) {
    std::vector<Kernel> kernels;
    for (DType d : kFloats) {
        kernels.push_back(pointwise("isnan", {d}, DType::Bool, [](auto in) { return unary(ElementOp::IsNan, in[0]); }));
        kernels.push_back(pointwise("not", {d}, DType::Bool, [](auto in) { return unary(ElementOp::LogicalNot, in[0]); }));
        for (ElementOp e : {ElementOp::Eq, ElementOp::Ne, ElementOp::Lt, ElementOp::Le, ElementOp::Gt, ElementOp::Ge, ElementOp::LogicalAnd,
                            ElementOp::LogicalOr})
            kernels.push_back(pointwise(elementOpName(e), {d, d}, DType::Bool, [e](auto in) { return binary(e, in[0], in[1]); }));
    }
    checkAll(kernels, [](const Kernel&) { return Tolerance{}; });
}

TEST(CpuCodegenOps, FloatBinaryOps) {
    std::vector<Kernel> kernels;
    for (ElementOp e : {ElementOp::Add, ElementOp::Sub, ElementOp::Mul, ElementOp::Div, ElementOp::FloorDiv, ElementOp::Mod, ElementOp::Pow,
                        ElementOp::Maximum, ElementOp::Minimum, ElementOp::Atan2})
        for (DType d : kFloats)
            kernels.push_back(pointwise(std::string(elementOpName(e)) + "_" + std::string(dtypeName(d)), {d, d}, d,
                                        [e](auto in) { return binary(e, in[0], in[1]); }));
    // Exact ops must be exact; pow/atan2 go through libm/libmvec.
    checkAll(kernels, [](const Kernel& k) {
        const bool libm = k.name.find("pow") != std::string::npos || k.name.find("atan2") != std::string::npos;
        return libm ? mathTolerance(k) : Tolerance{};
    });
}

TEST(CpuCodegenOps, IntegerAndBoolOps) {
    std::vector<Kernel> kernels;
    for (DType d : kInts) {
        const std::string suffix = "_" + std::string(dtypeName(d));
        for (ElementOp e : {ElementOp::Neg, ElementOp::Abs, ElementOp::Sign, ElementOp::BitNot, ElementOp::Floor, ElementOp::Ceil, ElementOp::Round,
                            ElementOp::Trunc})
            kernels.push_back(pointwise(elementOpName(e) + suffix, {d}, d, [e](auto in) { return unary(e, in[0]); }));
        kernels.push_back(pointwise("not" + suffix, {d}, DType::Bool, [](auto in) { return unary(ElementOp::LogicalNot, in[0]); }));
        kernels.push_back(pointwise("isnan" + suffix, {d}, DType::Bool, [](auto in) { return unary(ElementOp::IsNan, in[0]); }));
        for (ElementOp e : {ElementOp::Add, ElementOp::Sub, ElementOp::Mul, ElementOp::Maximum, ElementOp::Minimum, ElementOp::BitAnd,
                            ElementOp::BitOr, ElementOp::BitXor})
            kernels.push_back(pointwise(elementOpName(e) + suffix, {d, d}, d, [e](auto in) { return binary(e, in[0], in[1]); }));
        for (ElementOp e : {ElementOp::Eq, ElementOp::Ne, ElementOp::Lt, ElementOp::Le, ElementOp::Gt, ElementOp::Ge, ElementOp::LogicalAnd,
                            ElementOp::LogicalOr})
            kernels.push_back(pointwise(elementOpName(e) + suffix, {d, d}, DType::Bool, [e](auto in) { return binary(e, in[0], in[1]); }));
        if (d == DType::Bool) {
            kernels.push_back(pointwise("pow_bool", {d, d}, d, [](auto in) { return binary(ElementOp::Pow, in[0], in[1]); }));
            continue;
        }
        // Divisors are never zero (the interpreter throws); pow exponents are kept small (it loops).
        for (ElementOp e : {ElementOp::Div, ElementOp::FloorDiv, ElementOp::Mod})
            kernels.push_back(pointwise(elementOpName(e) + suffix, {d, d}, d, [e](auto in) { return binary(e, in[0], in[1]); }));
        kernels.push_back(pointwise("pow" + suffix, {d, d}, d, [d](auto in) {
            return binary(ElementOp::Pow, in[0], binary(ElementOp::Mod, in[1], constantInt(5, d)));
        }));
    }
    checkAll(kernels, [](const Kernel&) { return Tolerance{}; }, true);
}

TEST(CpuCodegenOps, NarrowSignedDivisionEdges) {
    // INT8_MIN / -1 wraps (the interpreter divides in int64), floor-div/mod take the divisor's sign.
    Kernel k = pointwise("div_i8", {DType::Int8, DType::Int8}, DType::Int8, [](auto in) { return binary(ElementOp::Div, in[0], in[1]); });
    Kernel f = pointwise("floordiv_i8", {DType::Int8, DType::Int8}, DType::Int8, [](auto in) { return binary(ElementOp::FloorDiv, in[0], in[1]); });
    Kernel m = pointwise("mod_i8", {DType::Int8, DType::Int8}, DType::Int8, [](auto in) { return binary(ElementOp::Mod, in[0], in[1]); });
    std::vector<Kernel> kernels = {k, f, m};
    auto module = compileCpuKernels(kernels);
    SymbolValues symbols{{"s0", 4}};
    for (size_t i = 0; i < kernels.size(); ++i) {
        Buffers in = randomBuffers(kernels[i], symbols, 5);
        const int8_t a[] = {-128, -7, 7, -128, 5, -5, 0, 127, -1, 100, -100, 3, -128, 1, 2, -3, 9, -9, 13, -13};
        const int8_t b[] = {-1, 2, -2, 3};
        std::memcpy(in.bytes[0].data(), a, sizeof a);
        std::memcpy(in.bytes[1].data(), b, sizeof b);
        checkAgainstInterpreter(kernels[i], *module, i, symbols, in, {}, kernels[i].name);
    }
}

TEST(CpuCodegenOps, EveryCast) {
    std::vector<Kernel> kernels;
    const DType all[] = {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                         DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
    for (DType from : all)
        for (DType to : all)
            if (from != to)
                kernels.push_back(pointwise("cast_" + std::string(dtypeName(from)) + "_" + std::string(dtypeName(to)), {from}, to,
                                            [to](auto in) { return cast(in[0], to); }));
    checkAll(kernels, [](const Kernel&) { return Tolerance{}; }, false, 300);
}

TEST(CpuCodegenOps, WhereIndexValuesAndConstants) {
    std::vector<Kernel> kernels;
    for (DType d : {DType::Float32, DType::Float16, DType::Int8, DType::UInt8, DType::Int64, DType::Bool, DType::BFloat16, DType::Float64}) {
        kernels.push_back(pointwise("where_iota_" + std::string(dtypeName(d)), {DType::Float32}, d, [d](auto in) {
            ExprPtr iota = indexValue(x(0) * c(100) + x(1), d);
            ExprPtr constant = tensor::isFloating(d) ? constantFloat(0.1, d) : constantInt(-3, d);
            return where(binary(ElementOp::Gt, in[0], constantFloat(0, DType::Float32)), iota, constant);
        }));
    }
    kernels.push_back(pointwise("nan_constant", {DType::Float32}, DType::Float32, [](auto in) {
        return where(unary(ElementOp::IsNan, in[0]), constantFloat(std::numeric_limits<double>::infinity(), DType::Float32),
                     binary(ElementOp::Add, in[0], constantFloat(std::nan(""), DType::Float32)));
    }));
    checkAll(kernels, [](const Kernel&) { return Tolerance{}; });
}

TEST(CpuCodegenOps, HalfMathChainsRoundEveryStep) {
    // bfloat16 / float16 expressions: each op rounds to the 16-bit type, exactly like the interpreter.
    std::vector<Kernel> kernels;
    for (DType d : {DType::Float16, DType::BFloat16}) {
        kernels.push_back(pointwise("chain_" + std::string(dtypeName(d)), {d, d}, d, [d](auto in) {
            ExprPtr t = binary(ElementOp::Mul, binary(ElementOp::Add, in[0], in[1]), constantFloat(1.1, d));
            return binary(ElementOp::Sub, binary(ElementOp::Div, t, in[1]), unary(ElementOp::Sqrt, unary(ElementOp::Abs, in[0])));
        }));
    }
    checkAll(kernels, [](const Kernel&) { return Tolerance{}; });
}

TEST(CpuCodegenOps, ThreeDimensionalOuterRangeSplitAnywhere) {
    // A transposing copy over [3, s0, 5]: the row-by-row walk must resume mid-row at any split.
    Kernel k;
    k.name = "permute";
    k.symbols = {"s0"};
    k.outerRanges = {c(3), indexSymbol("s0"), c(5)};
    k.buffers = {samples::buffer("in", DType::Float32, true, false), samples::buffer("out", DType::Float32, false, true)};
    Index src = x(2) * (c(3) * indexSymbol("s0")) + x(0) * indexSymbol("s0") + x(1);
    Index dst = (x(0) * indexSymbol("s0") + x(1)) * c(5) + x(2);
    k.passes = {KernelPass{false, {}, {Store{1, dst, unary(ElementOp::Exp, load(0, src, DType::Float32))}}}};
    auto module = compileCpuKernels({k});
    for (int64_t s0 : {1, 4, 9}) {
        SymbolValues symbols{{"s0", s0}};
        Buffers in = randomBuffers(k, symbols, 11);
        for (int pieces : {1, 2, 4, 13, static_cast<int>(15 * s0)})
            checkAgainstInterpreter(k, *module, 0, symbols, in, {4, 0}, "permute s0=" + std::to_string(s0), pieces);
    }
}

}  // namespace
}  // namespace eng::inductor::cpu
