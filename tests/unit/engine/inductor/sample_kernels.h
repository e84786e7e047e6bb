// Hand-built kernels that cover the kernel IR's shapes (pointwise with broadcasts, row and column reductions,
// multi-pass softmax and layer norm, argmax, bfloat16 math, symbolic sizes), shared by the IR, CPU and CUDA
// code generator tests, which all compare against interpretKernel.
#pragma once

#include <string>
#include <vector>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor::samples {

inline Index x(int n) { return indexVar(n); }
inline Index c(int64_t v) { return indexConstant(v); }

inline KernelBuffer buffer(std::string name, DType dtype, bool read, bool written) {
    return KernelBuffer{std::move(name), dtype, read, written};
}

/// out = relu(x * 2 + 1).sin() * sigmoid(x) over n elements (benchmark B1).
inline Kernel pointwiseChain(int64_t n) {
    Kernel k;
    k.name = "cwb_poi_fused_add_mul_relu_sigmoid_sin_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("buf0", DType::Float32, false, true)};
    k.outerRanges = {c(n)};
    auto in = load(0, x(0), DType::Float32);
    auto t = binary(ElementOp::Add, binary(ElementOp::Mul, in, constantFloat(2, DType::Float32)), constantFloat(1, DType::Float32));
    auto relu = binary(ElementOp::Maximum, t, constantFloat(0, DType::Float32));
    auto value = binary(ElementOp::Mul, unary(ElementOp::Sin, relu), unary(ElementOp::Sigmoid, in));
    k.passes = {KernelPass{false, {}, {Store{1, x(0), value}}}};
    return k;
}

/// out[i, j] = a[i, j] + b[j] (b broadcast over rows), rows x cols, with a given as a transposed view
/// (a[i, j] at j * rows + i) so that one load is strided.
inline Kernel broadcastAddTransposed(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_poi_fused_add_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("arg1_1", DType::Float32, true, false),
                 buffer("buf0", DType::Float32, false, true)};
    k.outerRanges = {c(rows), c(cols)};
    auto a = load(0, x(1) * c(rows) + x(0), DType::Float32);
    auto b = load(1, x(1), DType::Float32);
    k.passes = {KernelPass{false, {}, {Store{2, x(0) * c(cols) + x(1), binary(ElementOp::Add, a, b)}}}};
    return k;
}

/// softmax over the last dim of [rows, s0] with a symbolic row length: max pass, sum-of-exp pass, write pass.
inline Kernel softmaxRows(int64_t rows) {
    Kernel k;
    k.name = "cwb_red_fused__softmax_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("buf0", DType::Float32, false, true)};
    k.symbols = {"s0"};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {indexSymbol("s0")};
    Index at = x(0) * indexSymbol("s0") + x(1);
    auto in = load(0, at, DType::Float32);
    KernelPass maxPass{true, {Reduction{0, ReductionOp::Max, in}}, {}};
    auto shifted = binary(ElementOp::Sub, in, reductionValue(0, DType::Float32));
    KernelPass sumPass{true, {Reduction{1, ReductionOp::Sum, unary(ElementOp::Exp, shifted)}}, {}};
    KernelPass writePass{true, {}, {Store{1, at, binary(ElementOp::Div, unary(ElementOp::Exp, shifted), reductionValue(1, DType::Float32))}}};
    k.passes = {maxPass, sumPass, writePass};
    return k;
}

/// layer_norm over the last dim of bfloat16 [rows, cols] with float32 weight and bias: mean and mean of
/// squares in one pass (float32 math), then the normalised row; also stores each row's mean (an outer pass).
inline Kernel layerNormBf16(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_fused_native_layer_norm_0";
    k.buffers = {buffer("arg0_1", DType::BFloat16, true, false), buffer("arg1_1", DType::Float32, true, false),
                 buffer("arg2_1", DType::Float32, true, false), buffer("buf0", DType::BFloat16, false, true),
                 buffer("buf1", DType::Float32, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    Index at = x(0) * c(cols) + x(1);
    auto in = cast(load(0, at, DType::BFloat16), DType::Float32);
    KernelPass stats{true, {Reduction{0, ReductionOp::Sum, in}, Reduction{1, ReductionOp::Sum, binary(ElementOp::Mul, in, in)}}, {}};
    auto n = constantFloat(static_cast<double>(cols), DType::Float32);
    auto mean = binary(ElementOp::Div, reductionValue(0, DType::Float32), n);
    auto var = binary(ElementOp::Sub, binary(ElementOp::Div, reductionValue(1, DType::Float32), n), binary(ElementOp::Mul, mean, mean));
    auto rstd = unary(ElementOp::Rsqrt, binary(ElementOp::Add, var, constantFloat(1e-5, DType::Float32)));
    auto normalised = binary(ElementOp::Mul, binary(ElementOp::Sub, in, mean), rstd);
    auto affine = binary(ElementOp::Add, binary(ElementOp::Mul, normalised, load(1, x(1), DType::Float32)), load(2, x(1), DType::Float32));
    KernelPass write{true, {}, {Store{3, at, cast(affine, DType::BFloat16)}}};
    KernelPass means{false, {}, {Store{4, x(0), mean}}};
    k.passes = {stats, write, means};
    return k;
}

/// out[j] = sum over i of a[i, j] (a column reduction: the reduced variable has the large stride), and
/// idx[j] = argmax over i.
inline Kernel columnSumAndArgmax(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_fused_argmax_sum_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("buf0", DType::Float32, false, true),
                 buffer("buf1", DType::Int64, false, true)};
    k.outerRanges = {c(cols)};
    k.reductionRanges = {c(rows)};
    auto in = load(0, x(1) * c(cols) + x(0), DType::Float32);
    KernelPass reduce{true, {Reduction{0, ReductionOp::Sum, in}, Reduction{1, ReductionOp::ArgMax, in}}, {}};
    KernelPass write{false, {}, {Store{1, x(0), reductionValue(0, DType::Float32)}, Store{2, x(0), reductionValue(1, DType::Int64)}}};
    k.passes = {reduce, write};
    return k;
}

/// Integer and boolean math: out = where(a > 3, a // 2, a % 5) as int64, mask = any(a == 0) per row of 2-D
/// int32 a (a 2-D outer range decoded from one flat index, a cast int32 -> int64).
inline Kernel integerWhereAndAny(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_fused_any_floordiv_remainder_where_0";
    k.buffers = {buffer("arg0_1", DType::Int32, true, false), buffer("buf0", DType::Int64, false, true),
                 buffer("buf1", DType::Bool, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    Index at = x(0) * c(cols) + x(1);
    auto a = cast(load(0, at, DType::Int32), DType::Int64);
    auto value = where(binary(ElementOp::Gt, a, constantInt(3, DType::Int64)), binary(ElementOp::FloorDiv, a, constantInt(2, DType::Int64)),
                       binary(ElementOp::Mod, a, constantInt(5, DType::Int64)));
    KernelPass first{true, {Reduction{0, ReductionOp::Any, binary(ElementOp::Eq, a, constantInt(0, DType::Int64))}}, {Store{1, at, value}}};
    KernelPass write{false, {}, {Store{2, x(0), reductionValue(0, DType::Bool)}}};
    k.passes = {first, write};
    return k;
}

/// out = in[1:] of a dynamic-size vector: the range s0 - 1 holds a negative constant (as x[1:] lowers), which
/// the code generator must not treat as an unsigned add.
inline Kernel sliceOfDynamicSize() {
    Kernel k;
    k.name = "cwb_poi_fused_slice_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("buf0", DType::Float32, false, true)};
    k.symbols = {"s0"};
    k.outerRanges = {indexSymbol("s0") + c(-1)};
    k.passes = {KernelPass{false, {}, {Store{1, x(0), load(0, x(0) + c(1), DType::Float32)}}}};
    return k;
}

/// A combo kernel, as an optimizer step over parameters of several shapes makes: the pointwise chain over 1000
/// elements, the transposed broadcast add over 7 x 13 and the dynamic slice, the first and last reading one input.
inline Kernel comboOfThreeSizes() {
    std::vector<Kernel> parts = {pointwiseChain(1000), broadcastAddTransposed(7, 13), sliceOfDynamicSize()};
    parts[1].buffers[0].name = "arg1_1";
    parts[1].buffers[1].name = "arg2_1";
    parts[1].buffers[2].name = "buf1";
    parts[2].buffers[1].name = "buf2";
    return makeComboKernel("cwb_for_fused_add_mul_relu_sigmoid_sin_slice_0", std::move(parts), {{0, 1}, {2, 3, 4}, {0, 5}});
}

/// One parameter's momentum step over `sizes` (row-major, every access flat): m' = m * 0.9 + g * 0.1,
/// p' = p - m' * 0.01 / (1 - 0.9 ^ step) with step a one-element buffer; buffers p, g, m, step, m', p'.
inline Kernel momentumUpdate(const std::vector<int64_t>& sizes) {
    Kernel k;
    k.name = "cwb_poi_fused_add_div_mul_pow_sub_0";
    k.buffers = {buffer("p", DType::Float32, true, false), buffer("g", DType::Float32, true, false), buffer("m", DType::Float32, true, false),
                 buffer("step", DType::Float32, true, false), buffer("m_out", DType::Float32, false, true), buffer("p_out", DType::Float32, false, true)};
    Index flat = c(0);
    for (size_t d = 0; d < sizes.size(); ++d) {
        k.outerRanges.push_back(c(sizes[d]));
        flat = flat * c(sizes[d]) + x(static_cast<int>(d));
    }
    auto f = [](double v) { return constantFloat(v, DType::Float32); };
    auto m1 = binary(ElementOp::Add, binary(ElementOp::Mul, load(2, flat, DType::Float32), f(0.9)), binary(ElementOp::Mul, load(1, flat, DType::Float32), f(0.1)));
    auto correction = binary(ElementOp::Sub, f(1), binary(ElementOp::Pow, f(0.9), load(3, c(0), DType::Float32)));
    auto p1 = binary(ElementOp::Sub, load(0, flat, DType::Float32), binary(ElementOp::Div, binary(ElementOp::Mul, m1, f(0.01)), correction));
    k.passes = {KernelPass{false, {}, {Store{4, flat, m1}, Store{5, flat, p1}}}};
    return k;
}

/// A step count's update, step' = step + 1, over no outer range (one element).
inline Kernel countUpdate() {
    Kernel k;
    k.name = "cwb_poi_fused_add_0";
    k.buffers = {buffer("step", DType::Float32, true, false), buffer("step_out", DType::Float32, false, true)};
    k.passes = {KernelPass{false, {}, {Store{1, c(0), binary(ElementOp::Add, load(0, c(0), DType::Float32), constantFloat(1, DType::Float32))}}}};
    return k;
}

/// An optimizer step's combo kernel: the step counts, three parameters' momentum steps of other sizes (2-D and 1-D,
/// one shorter than a vector) and a transposed broadcast add, each part on buffers of its own: the counts share
/// one body, the momentum steps another (comboSharedBodies), the transposed add has its own code.
inline Kernel comboOfSharedBodies() {
    std::vector<Kernel> parts = {countUpdate(), momentumUpdate({7, 13}), momentumUpdate({1000}), countUpdate(), momentumUpdate({3}),
                                 broadcastAddTransposed(5, 3)};
    std::vector<std::vector<int>> keys;
    int next = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
        keys.emplace_back();
        for (KernelBuffer& b : parts[p].buffers) {
            b.name += "_" + std::to_string(p);
            keys.back().push_back(next++);
        }
    }
    return makeComboKernel("cwb_for_fused_add_div_mul_pow_sub_0", std::move(parts), keys);
}

inline std::vector<Kernel> all() {
    return {pointwiseChain(1000), broadcastAddTransposed(7, 13), softmaxRows(5), layerNormBf16(3, 64),
            columnSumAndArgmax(9, 6), integerWhereAndAny(4, 11), sliceOfDynamicSize(), comboOfThreeSizes(), comboOfSharedBodies()};
}

}  // namespace eng::inductor::samples
