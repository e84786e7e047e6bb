// Kernels beyond the shared samples that exercise the CUDA generator's corners: every element op per dtype,
// casts, 16-bit math, index values, broadcast and in-place accesses, row/column/multi-dim reductions of every
// op, column softmax, and passes that read what an earlier pass stored.
#pragma once

#include <string>
#include <vector>

#include "../sample_kernels.h"

namespace eng::inductor::cudatest {

using samples::buffer;
using samples::c;
using samples::x;

// out_k[x0] = op_k(in[x0]) for every unary op with a float form (bool results for logical_not / isnan).
inline Kernel allUnaryFloat(int64_t n, DType dtype) {
    Kernel k;
    k.name = std::string("cwb_poi_unary_") + std::string(tensor::dtypeName(dtype));
    k.buffers = {buffer("in0", dtype, true, false)};
    k.outerRanges = {c(n)};
    KernelPass pass;
    auto in = load(0, x(0), dtype);
    for (int op = 0; op <= static_cast<int>(ElementOp::IsNan); ++op) {
        const auto e = static_cast<ElementOp>(op);
        if (e == ElementOp::BitNot) continue;
        auto value = unary(e, in);
        k.buffers.push_back(buffer(std::string("out_") + elementOpName(e), value->dtype, false, true));
        pass.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), value});
    }
    k.passes = {pass};
    return k;
}

// out_k[x0] = op_k(a[x0], b[x0]) for every binary op with a float form.
inline Kernel allBinaryFloat(int64_t n, DType dtype) {
    Kernel k;
    k.name = std::string("cwb_poi_binary_") + std::string(tensor::dtypeName(dtype));
    k.buffers = {buffer("in0", dtype, true, false), buffer("in1", dtype, true, false)};
    k.outerRanges = {c(n)};
    KernelPass pass;
    auto a = load(0, x(0), dtype), b = load(1, x(0), dtype);
    for (int op = static_cast<int>(ElementOp::Add); op <= static_cast<int>(ElementOp::LogicalOr); ++op) {
        const auto e = static_cast<ElementOp>(op);
        auto value = binary(e, a, b);
        k.buffers.push_back(buffer(std::string("out_") + elementOpName(e), value->dtype, false, true));
        pass.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), value});
    }
    k.passes = {pass};
    return k;
}

// Integer (and bool-valued) ops of one integral dtype; divisors are made non-zero in the kernel itself,
// since the interpreter throws on integer division by zero.
inline Kernel allIntegerOps(int64_t n, DType dtype) {
    Kernel k;
    k.name = std::string("cwb_poi_integer_") + std::string(tensor::dtypeName(dtype));
    k.buffers = {buffer("in0", dtype, true, false), buffer("in1", dtype, true, false)};
    k.outerRanges = {c(n)};
    KernelPass pass;
    auto a = load(0, x(0), dtype), b = load(1, x(0), dtype);
    auto nonzero = where(binary(ElementOp::Eq, b, constantInt(0, dtype)), constantInt(3, dtype), b);
    auto add = [&](const std::string& name, ExprPtr value) {
        k.buffers.push_back(buffer("out_" + name, value->dtype, false, true));
        pass.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), value});
    };
    for (ElementOp op : {ElementOp::Neg, ElementOp::Abs, ElementOp::Sign, ElementOp::BitNot, ElementOp::LogicalNot, ElementOp::IsNan,
                         ElementOp::Floor, ElementOp::Round})
        add(elementOpName(op), unary(op, a));
    // Exponents in [-2, 4]: the interpreter multiplies b times.
    add("pow", binary(ElementOp::Pow, a, binary(ElementOp::Sub, binary(ElementOp::Mod, b, constantInt(7, dtype)), constantInt(2, dtype))));
    for (ElementOp op : {ElementOp::Add, ElementOp::Sub, ElementOp::Mul, ElementOp::Maximum, ElementOp::Minimum,
                         ElementOp::BitAnd, ElementOp::BitOr, ElementOp::BitXor, ElementOp::Eq, ElementOp::Ne, ElementOp::Lt,
                         ElementOp::Ge, ElementOp::LogicalAnd, ElementOp::LogicalOr})
        add(elementOpName(op), binary(op, a, b));
    for (ElementOp op : {ElementOp::Div, ElementOp::FloorDiv, ElementOp::Mod}) add(elementOpName(op), binary(op, a, nonzero));
    k.passes = {pass};
    return k;
}

inline Kernel boolOps(int64_t n) {
    Kernel k;
    k.name = "cwb_poi_bool_ops";
    k.buffers = {buffer("in0", DType::Bool, true, false), buffer("in1", DType::Bool, true, false)};
    k.outerRanges = {c(n)};
    KernelPass pass;
    auto a = load(0, x(0), DType::Bool), b = load(1, x(0), DType::Bool);
    auto add = [&](const std::string& name, ExprPtr value) {
        k.buffers.push_back(buffer("out_" + name, value->dtype, false, true));
        pass.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), value});
    };
    for (ElementOp op : {ElementOp::LogicalNot, ElementOp::BitNot}) add(elementOpName(op), unary(op, a));
    for (ElementOp op : {ElementOp::Add, ElementOp::Mul, ElementOp::BitXor, ElementOp::Maximum, ElementOp::LogicalAnd, ElementOp::Ne})
        add(elementOpName(op), binary(op, a, b));
    add("to_f32", cast(a, DType::Float32));
    k.passes = {pass};
    return k;
}

// Casts between dtypes (float -> int saturates through int64 as the interpreter; NaN/inf included).
inline Kernel casts(int64_t n) {
    Kernel k;
    k.name = "cwb_poi_casts";
    k.buffers = {buffer("in0", DType::Float32, true, false), buffer("in1", DType::Int64, true, false)};
    k.outerRanges = {c(n)};
    KernelPass pass;
    auto f = binary(ElementOp::Mul, load(0, x(0), DType::Float32), constantFloat(100, DType::Float32));
    auto i = load(1, x(0), DType::Int64);
    auto add = [&](const std::string& name, ExprPtr value) {
        k.buffers.push_back(buffer("out_" + name, value->dtype, false, true));
        pass.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), value});
    };
    for (DType to : {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::Float16, DType::BFloat16,
                     DType::Float64})
        add("f_" + std::string(tensor::dtypeName(to)), cast(f, to));
    for (DType to : {DType::Bool, DType::Int8, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64})
        add("i_" + std::string(tensor::dtypeName(to)), cast(i, to));
    add("f64_f32", cast(cast(f, DType::Float64), DType::Float32));
    k.passes = {pass};
    return k;
}

// Math held in 16-bit dtypes (rounded after every op) and mixed with float32.
inline Kernel halfMath(int64_t n) {
    Kernel k;
    k.name = "cwb_poi_half_math";
    k.buffers = {buffer("in0", DType::Float16, true, false), buffer("in1", DType::BFloat16, true, false),
                 buffer("out_half", DType::Float16, false, true), buffer("out_bf16", DType::BFloat16, false, true),
                 buffer("out_f32", DType::Float32, false, true)};
    k.outerRanges = {c(n)};
    auto a = load(0, x(0), DType::Float16), b = load(1, x(0), DType::BFloat16);
    auto h = binary(ElementOp::Maximum, binary(ElementOp::Add, binary(ElementOp::Mul, a, a), constantFloat(1, DType::Float16)),
                    unary(ElementOp::Exp, a));
    auto bb = binary(ElementOp::Sub, binary(ElementOp::Mul, b, b), cast(a, DType::BFloat16));
    auto f = binary(ElementOp::Mul, cast(a, DType::Float32), cast(b, DType::Float32));
    k.passes = {KernelPass{false, {}, {Store{2, x(0), h}, Store{3, x(0), bb}, Store{4, x(0), f}}}};
    return k;
}

// A 3-D outer range, all accesses flat (vectorised) plus index values and a broadcast scalar.
inline Kernel indexValues3d(int64_t d0, int64_t d1, int64_t d2) {
    Kernel k;
    k.name = "cwb_poi_index_values";
    k.buffers = {buffer("in0", DType::Float32, true, false), buffer("scale", DType::Float32, true, false),
                 buffer("out0", DType::Float32, false, true), buffer("out1", DType::Int64, false, true)};
    k.outerRanges = {c(d0), c(d1), c(d2)};
    Index flat = (x(0) * c(d1) + x(1)) * c(d2) + x(2);
    auto value = binary(ElementOp::Add, binary(ElementOp::Mul, load(0, flat, DType::Float32), load(1, c(0), DType::Float32)),
                        indexValue(x(1), DType::Float32));
    auto iota = where(binary(ElementOp::Eq, indexValue(x(2), DType::Int64), constantInt(0, DType::Int64)), indexValue(flat, DType::Int64),
                      constantInt(-1, DType::Int64));
    k.passes = {KernelPass{false, {}, {Store{2, flat, value}, Store{3, x(2) + x(1) * c(d2) + x(0) * c(d1 * d2), iota}}}};
    return k;
}

// A cat along the last dim of three [rows, cols] slices of one [3, rows, cols] buffer, as the qkv gradient's
// (out[x0, x1] = where(x1 < cols, in[0, x0, x1], where(x1 < 2 cols, in[1, x0, x1 - cols], in[2, x0, x1 - 2 cols])),
// the offsets written as x1 % cols), bf16: a where-chain whose sides each load.
inline Kernel catOfThreeSlices(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_poi_cat_slices";
    k.buffers = {buffer("in0", DType::BFloat16, true, false), buffer("out0", DType::BFloat16, false, true)};
    k.outerRanges = {c(rows), c(3 * cols)};
    auto slice = [&](int64_t i) { return load(0, c(i * rows * cols) + x(0) * c(cols) + modulo(x(1), c(cols)), DType::BFloat16); };
    auto below = [&](int64_t limit) { return binary(ElementOp::Lt, indexValue(x(1), DType::Int64), constantInt(limit, DType::Int64)); };
    k.passes = {KernelPass{false, {}, {Store{1, x(0) * c(3 * cols) + x(1), where(below(cols), slice(0), where(below(2 * cols), slice(1), slice(2)))}}}};
    return k;
}

// torch.cat along the innermost dim as the lowering builds it (a where-chain over the pieces, each piece's position
// wrapped into its range by (x + lift - offset) % extent): out[x0, x1] of [rows, sum(sizes)] from one input
// [rows, size] per piece, in `dtype`.
inline Kernel catOfPieces(int64_t rows, const std::vector<int64_t>& sizes, DType dtype) {
    Kernel k;
    k.name = "cwb_poi_cat_pieces";
    int64_t total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        k.buffers.push_back(buffer("in" + std::to_string(i), dtype, true, false));
        total += sizes[i];
    }
    k.buffers.push_back(buffer("out0", dtype, false, true));
    k.outerRanges = {c(rows), c(total)};
    ExprPtr value;
    for (size_t i = sizes.size(), offset = static_cast<size_t>(total); i-- > 0;) {
        const int64_t extent = sizes[i];
        offset -= static_cast<size_t>(extent);
        const int64_t start = static_cast<int64_t>(offset), lift = (start + extent - 1) / extent * extent;
        ExprPtr piece = load(static_cast<int>(i), x(0) * c(extent) + modulo(x(1) + c(lift - start), c(extent)), dtype);
        value = value ? where(binary(ElementOp::Lt, indexValue(x(1), DType::Int64), constantInt(start + extent, DType::Int64)), piece, value) : piece;
    }
    k.passes = {KernelPass{false, {}, {Store{static_cast<int>(sizes.size()), x(0) * c(total) + x(1), value}}}};
    return k;
}

// The GPT-2 step's q/k/v gradient cat: out[x0, x1, x2] of [batch, rows, 3 * heads * dim] (bf16) from the three
// [batch, rows, heads * dim] views of one gradient buffer, read through their heads (c // dim, c % dim): the flash
// layout [3, batch, rows, heads, dim], or with `transposed` [3, batch, heads, rows, dim]; `pitch` (flash layout only)
// spaces the heads that far apart instead of `dim` (each head's first `dim` elements of a padded row).
inline Kernel catOfHeadViews(int64_t batch, int64_t rows, int64_t heads, int64_t dim, bool transposed, int64_t pitch = 0) {
    Kernel k;
    k.name = "cwb_poi_cat_head_views";
    k.buffers = {buffer("grads", DType::BFloat16, true, false), buffer("out0", DType::BFloat16, false, true)};
    const int64_t width = heads * dim, stride = pitch ? pitch : dim, piece = batch * rows * heads * stride;
    k.outerRanges = {c(batch), c(rows), c(3 * width)};
    ExprPtr value;
    for (int64_t i = 3; i-- > 0;) {
        const Index col = modulo(x(2) + c(0), c(width)), head = floorDiv(col, c(dim)), d = modulo(col, c(dim));
        const Index at = transposed ? c(i * piece) + x(0) * c(piece / batch) + head * c(rows * dim) + x(1) * c(dim) + d
                                    : c(i * piece) + x(0) * c(rows * heads * stride) + x(1) * c(heads * stride) + head * c(stride) + d;
        ExprPtr load0 = load(0, at, DType::BFloat16);
        value = value ? where(binary(ElementOp::Lt, indexValue(x(2), DType::Int64), constantInt((i + 1) * width, DType::Int64)), load0, value) : load0;
    }
    k.passes = {KernelPass{false, {}, {Store{1, (x(0) * c(rows) + x(1)) * c(3 * width) + x(2), value}}}};
    return k;
}

// out[x0, x1] = a[x0, x1] * 2 + b[x1] over [rows, cols] with a's rows `pitch` elements apart (a padded view): the
// store is flat, the loads are not; b and, when pitch is a multiple of the vector width, a step by one along x1.
inline Kernel pitchedRowsPlusBias(int64_t rows, int64_t cols, int64_t pitch, DType dtype) {
    Kernel k;
    k.name = "cwb_poi_fused_add_mul_pitched";
    k.buffers = {buffer("arg0_1", dtype, true, false), buffer("arg1_1", dtype, true, false), buffer("buf0", dtype, false, true)};
    k.outerRanges = {c(rows), c(cols)};
    auto a = cast(load(0, x(0) * c(pitch) + x(1), dtype), DType::Float32), b = cast(load(1, x(1), dtype), DType::Float32);
    auto sum = binary(ElementOp::Add, binary(ElementOp::Mul, a, constantFloat(2, DType::Float32)), b);
    k.passes = {KernelPass{false, {}, {Store{2, x(0) * c(cols) + x(1), cast(sum, dtype)}}}};
    return k;
}

// In place: buf[x0] = buf[x0] * 2 + 1 over a symbolic size (64-bit indexing, vectorised).
inline Kernel inPlaceSymbolic() {
    Kernel k;
    k.name = "cwb_poi_inplace";
    k.buffers = {buffer("buf0", DType::Float32, true, true)};
    k.symbols = {"s0"};
    k.outerRanges = {indexSymbol("s0")};
    auto value = binary(ElementOp::Add, binary(ElementOp::Mul, load(0, x(0), DType::Float32), constantFloat(2, DType::Float32)),
                        constantFloat(1, DType::Float32));
    k.passes = {KernelPass{false, {}, {Store{0, x(0), value}}}};
    return k;
}

// Every reduction op over rows of [rows, s0] (rowLayout) or over columns of [s0, cols] (column layout).
inline Kernel everyReduction(int64_t outer, bool rowLayout, bool extremes) {
    Kernel k;
    k.name = std::string("cwb_red_every_") + (rowLayout ? "row" : "column") + (extremes ? "" : "_sums");
    k.buffers = {buffer("in0", DType::Float32, true, false)};
    k.symbols = {"s0"};
    k.outerRanges = {c(outer)};
    k.reductionRanges = {indexSymbol("s0")};
    Index at = rowLayout ? x(0) * indexSymbol("s0") + x(1) : x(1) * c(outer) + x(0);
    auto in = load(0, at, DType::Float32);
    std::vector<Reduction> reductions = {
        Reduction{0, ReductionOp::Sum, in},
        Reduction{1, ReductionOp::Prod, binary(ElementOp::Add, constantFloat(1, DType::Float32), binary(ElementOp::Mul, in, constantFloat(0.01, DType::Float32)))},
        Reduction{2, ReductionOp::Any, binary(ElementOp::Gt, in, constantFloat(2.5, DType::Float32))},
        Reduction{3, ReductionOp::All, binary(ElementOp::Gt, in, constantFloat(-2.9, DType::Float32))},
    };
    if (extremes)
        for (ReductionOp op : {ReductionOp::Max, ReductionOp::Min, ReductionOp::ArgMax, ReductionOp::ArgMin})
            reductions.push_back(Reduction{static_cast<int>(reductions.size()), op, in});
    KernelPass write{false, {}, {}};
    for (const Reduction& r : reductions) {
        k.buffers.push_back(buffer(std::string("out_") + reductionOpName(r.op), r.resultDtype(), false, true));
        write.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), reductionValue(r.id, r.resultDtype())});
    }
    k.passes = {KernelPass{true, reductions, {}}, write};
    return k;
}

// Integer reductions with wrap-around: int8 sum, int32 prod, int16 max, int64 argmin, over [rows, cols].
inline Kernel integerReductions(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_integer";
    k.buffers = {buffer("in0", DType::Int8, true, false), buffer("in1", DType::Int64, true, false)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    Index at = x(0) * c(cols) + x(1);
    auto a = load(0, at, DType::Int8);
    auto b = load(1, at, DType::Int64);
    std::vector<Reduction> reductions = {Reduction{0, ReductionOp::Sum, a}, Reduction{1, ReductionOp::Prod, cast(a, DType::Int32)},
                                         Reduction{2, ReductionOp::Max, cast(a, DType::Int16)}, Reduction{3, ReductionOp::ArgMin, b},
                                         Reduction{4, ReductionOp::Sum, binary(ElementOp::Gt, a, constantInt(0, DType::Int8))}};
    KernelPass write{false, {}, {}};
    for (const Reduction& r : reductions) {
        k.buffers.push_back(buffer("out" + std::to_string(r.id), r.resultDtype(), false, true));
        write.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), reductionValue(r.id, r.resultDtype())});
    }
    k.passes = {KernelPass{true, reductions, {}}, write};
    return k;
}

// A two-dimensional reduction range [b, c] per outer index (positions are flat over it).
inline Kernel multiDimReduction(int64_t a, int64_t b, int64_t cc) {
    Kernel k;
    k.name = "cwb_red_multi_dim";
    k.buffers = {buffer("in0", DType::Float32, true, false), buffer("out0", DType::Float32, false, true),
                 buffer("out1", DType::Int64, false, true)};
    k.outerRanges = {c(a)};
    k.reductionRanges = {c(b), c(cc)};
    auto in = load(0, x(0) * c(b * cc) + x(1) * c(cc) + x(2), DType::Float32);
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Sum, in}, Reduction{1, ReductionOp::ArgMax, in}}, {}},
                KernelPass{false, {}, {Store{1, x(0), reductionValue(0, DType::Float32)}, Store{2, x(0), reductionValue(1, DType::Int64)}}}};
    return k;
}

// softmax over dim 0 of [rows, cols]: a column reduction with three passes.
inline Kernel columnSoftmax(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_column_softmax";
    k.buffers = {buffer("in0", DType::Float32, true, false), buffer("out0", DType::Float32, false, true)};
    k.outerRanges = {c(cols)};
    k.reductionRanges = {c(rows)};
    Index at = x(1) * c(cols) + x(0);
    auto in = load(0, at, DType::Float32);
    auto shifted = binary(ElementOp::Sub, in, reductionValue(0, DType::Float32));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Max, in}}, {}},
                KernelPass{true, {Reduction{1, ReductionOp::Sum, unary(ElementOp::Exp, shifted)}}, {}},
                KernelPass{true, {}, {Store{1, at, binary(ElementOp::Div, unary(ElementOp::Exp, shifted), reductionValue(1, DType::Float32))}}}};
    return k;
}

// Softmax over a causal mask that hides column c >= row r (where(c < r, x, -inf)): row 0 is all -inf (NaN, as
// eagerly), row 1 has one finite element, later rows start finite and end in -inf.
inline Kernel maskedSoftmax(int64_t rows, int64_t cols, DType dtype = DType::Float32) {
    Kernel k;
    k.name = "cwb_red_fused__softmax_masked_0";
    k.buffers = {buffer("in0", dtype, true, false), buffer("out0", dtype, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    Index at = x(0) * c(cols) + x(1);
    auto visible = binary(ElementOp::Lt, indexValue(x(1), DType::Int64), indexValue(x(0), DType::Int64));
    auto in = where(visible, load(0, at, dtype), constantFloat(-INFINITY, dtype));
    auto shifted = binary(ElementOp::Sub, in, reductionValue(0, dtype));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Max, in}}, {}},
                KernelPass{true, {Reduction{1, ReductionOp::Sum, unary(ElementOp::Exp, shifted)}}, {}},
                KernelPass{true, {}, {Store{1, at, binary(ElementOp::Div, unary(ElementOp::Exp, shifted), reductionValue(1, dtype))}}}};
    return k;
}

// Pass 0 stores tmp = in * 2 (and sums in); pass 1 reads tmp reversed along the row, so other threads'
// stores must be visible; the outer pass writes both results.
inline Kernel storeThenReload(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_store_then_reload";
    k.buffers = {buffer("in0", DType::Float32, true, false), buffer("tmp0", DType::Float32, true, true),
                 buffer("out0", DType::Float32, false, true), buffer("out1", DType::Float32, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    Index at = x(0) * c(cols) + x(1);
    Index reversed = x(0) * c(cols) + c(cols - 1) + x(1) * c(-1);
    auto in = load(0, at, DType::Float32);
    auto reread = load(1, reversed, DType::Float32);
    auto weighted = binary(ElementOp::Mul, reread, indexValue(x(1), DType::Float32));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Sum, in}}, {Store{1, at, binary(ElementOp::Mul, in, constantFloat(2, DType::Float32))}}},
                KernelPass{true, {Reduction{1, ReductionOp::Max, weighted}}, {}},
                KernelPass{false, {}, {Store{2, x(0), reductionValue(0, DType::Float32)}, Store{3, x(0), reductionValue(1, DType::Float32)}}}};
    return k;
}

// softmax over rows of a constant length (persistent rows apply), written in place of the input's copy.
inline Kernel softmaxConstant(int64_t rows, int64_t cols) {
    Kernel k = samples::softmaxRows(rows);
    k.name = "cwb_red_fused__softmax_constant_0";
    k.symbols = {};
    k.reductionRanges = {c(cols)};
    Index at = x(0) * c(cols) + x(1);
    auto in = load(0, at, DType::Float32);
    auto shifted = binary(ElementOp::Sub, in, reductionValue(0, DType::Float32));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Max, in}}, {}},
                KernelPass{true, {Reduction{1, ReductionOp::Sum, unary(ElementOp::Exp, shifted)}}, {}},
                KernelPass{true, {}, {Store{1, at, binary(ElementOp::Div, unary(ElementOp::Exp, shifted), reductionValue(1, DType::Float32))}}}};
    return k;
}

// x.sum() into a 0-d buffer: no outer ranges, one block.
inline Kernel fullSum(int64_t n) {
    Kernel k;
    k.name = "cwb_red_fused_sum_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("buf0", DType::Float32, false, true)};
    k.reductionRanges = {c(n)};
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Sum, load(0, x(0), DType::Float32)}}, {}},
                KernelPass{false, {}, {Store{1, c(0), reductionValue(0, DType::Float32)}}}};
    return k;
}

// A training loss's tail, as the scheduler fuses it: full sums over [rows, cols] (no outer ranges, two
// reduction variables) of a squared softmax and of a log_softmax read through per-row max and sum buffers
// (`buf[r0]`: constant along the inner reduction variable), then one 0-d store that adds a 0-d input.
inline Kernel fullSumsOfRows(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_fused_add_log_softmax_mean_mul_sub_sum_0";
    k.buffers = {buffer("probs", DType::Float32, true, false), buffer("logits", DType::Float32, true, false), buffer("row_max", DType::Float32, true, false),
                 buffer("row_sum", DType::Float32, true, false), buffer("loss", DType::Float32, false, true), buffer("nll", DType::Float32, true, false)};
    k.reductionRanges = {c(rows), c(cols)};
    const Index at = x(0) * c(cols) + x(1);
    auto p = load(0, at, DType::Float32);
    auto logSoftmax = binary(ElementOp::Sub, binary(ElementOp::Sub, load(1, at, DType::Float32), load(2, x(0), DType::Float32)),
                             unary(ElementOp::Log, load(3, x(0), DType::Float32)));
    auto squares = binary(ElementOp::Mul, reductionValue(0, DType::Float32), constantFloat(0.01, DType::Float32));
    auto mean = binary(ElementOp::Div, reductionValue(1, DType::Float32), constantFloat(static_cast<double>(rows * cols), DType::Float32));
    auto loss = binary(ElementOp::Sub, binary(ElementOp::Add, load(5, c(0), DType::Float32), squares), binary(ElementOp::Mul, mean, constantFloat(0.1, DType::Float32)));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Sum, binary(ElementOp::Mul, p, p)}, Reduction{1, ReductionOp::Sum, logSoftmax}}, {}},
                KernelPass{false, {}, {Store{4, c(0), loss}}}};
    return k;
}

// B6 and more in one read of [rows, cols]: row sums, and over the outer range (Reduction::overOuterRange) the
// column sums (written as their mean), maxima (times 2) and counts of positives (an int64 sum), which finalStores
// write after every row; `symbolicColumns` makes the row length s0.
inline Kernel rowAndColumnReductions(int64_t rows, int64_t cols, bool symbolicColumns = false) {
    Kernel k;
    k.name = "cwb_red_fused_amax_mean_mul_sum_0";
    k.buffers = {buffer("arg0_1", DType::Float32, true, false), buffer("buf0", DType::Float32, false, true), buffer("buf1", DType::Float32, false, true),
                 buffer("buf2", DType::Float32, false, true), buffer("buf3", DType::Int64, false, true)};
    const Index length = symbolicColumns ? indexSymbol("s0") : c(cols);
    if (symbolicColumns) k.symbols = {"s0"};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {length};
    auto in = load(0, x(0) * length + x(1), DType::Float32);
    auto positive = cast(binary(ElementOp::Gt, in, constantFloat(0, DType::Float32)), DType::Int64);
    k.passes = {KernelPass{true,
                           {Reduction{0, ReductionOp::Sum, in}, Reduction{1, ReductionOp::Sum, in, true}, Reduction{2, ReductionOp::Max, in, true},
                            Reduction{3, ReductionOp::Sum, positive, true}},
                           {}},
                KernelPass{false, {}, {Store{1, x(0), reductionValue(0, DType::Float32)}}}};
    k.finalStores = {Store{2, x(1), binary(ElementOp::Div, reductionValue(1, DType::Float32), constantFloat(static_cast<double>(rows), DType::Float32))},
                     Store{3, x(1), binary(ElementOp::Mul, reductionValue(2, DType::Float32), constantFloat(2, DType::Float32))},
                     Store{4, x(1), reductionValue(3, DType::Int64)}};
    return k;
}

// A layer-norm backward's shape (GPT-2's, rows of 768): per row the sum of dy * xhat and the input gradient
// written from it, and over the outer range the column sums of dy and dy * xhat (the bias and weight gradients)
// and the column maxima of dy; dy and xhat of `dtype`, the column results in float32.
inline Kernel layerNormBackwardLike(int64_t rows, int64_t cols, DType dtype) {
    Kernel k;
    k.name = "cwb_red_fused_native_layer_norm_backward_0";
    k.buffers = {buffer("tangents_1", dtype, true, false), buffer("arg1_1", dtype, true, false), buffer("buf0", dtype, false, true),
                 buffer("buf1", DType::Float32, false, true), buffer("buf2", DType::Float32, false, true), buffer("buf3", DType::Float32, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    const Index at = x(0) * c(cols) + x(1);
    auto dy = cast(load(0, at, dtype), DType::Float32), xhat = cast(load(1, at, dtype), DType::Float32);
    auto product = binary(ElementOp::Mul, dy, xhat);
    auto scaled = binary(ElementOp::Div, binary(ElementOp::Mul, xhat, reductionValue(0, DType::Float32)), constantFloat(static_cast<double>(cols), DType::Float32));
    k.passes = {KernelPass{true,
                           {Reduction{0, ReductionOp::Sum, product}, Reduction{1, ReductionOp::Sum, dy, true}, Reduction{2, ReductionOp::Sum, product, true},
                            Reduction{3, ReductionOp::Max, dy, true}},
                           {}},
                KernelPass{true, {}, {Store{2, at, cast(binary(ElementOp::Sub, dy, scaled), dtype)}}}};
    k.finalStores = {Store{3, x(1), reductionValue(1, DType::Float32)}, Store{4, x(1), reductionValue(2, DType::Float32)},
                     Store{5, x(1), reductionValue(3, DType::Float32)}};
    return k;
}

// cross_entropy's backward as the training graph fuses it: rows of `cols` logits at a pitch of `pitch` (the padded
// head's output), softmax(x) minus the target's one-hot, times a per-row factor, stored at `outPitch` in the logits'
// dtype; the max, the sum of exps and the store are three passes over the row.
inline Kernel crossEntropyBackwardLike(int64_t rows, int64_t cols, int64_t pitch, int64_t outPitch, DType dtype) {
    Kernel k;
    k.name = "cwb_red_fused_cross_entropy_backward_0";
    k.buffers = {buffer("arg0_1", dtype, true, false), buffer("arg1_1", DType::Int64, true, false), buffer("arg2_1", DType::Float32, true, false),
                 buffer("buf0", dtype, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    const Index at = x(0) * c(pitch) + x(1);
    auto in = cast(load(0, at, dtype), DType::Float32);
    auto shifted = unary(ElementOp::Exp, binary(ElementOp::Sub, in, reductionValue(0, DType::Float32)));
    auto target = binary(ElementOp::Mod, load(1, x(0), DType::Int64), constantInt(cols, DType::Int64));
    auto oneHot = cast(binary(ElementOp::Eq, indexValue(x(1), DType::Int64), target), DType::Float32);
    auto grad = binary(ElementOp::Mul, binary(ElementOp::Sub, binary(ElementOp::Div, shifted, reductionValue(1, DType::Float32)), oneHot),
                       load(2, x(0), DType::Float32));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Max, in}}, {}}, KernelPass{true, {Reduction{1, ReductionOp::Sum, shifted}}, {}},
                KernelPass{true, {}, {Store{3, x(0) * c(outPitch) + x(1), cast(grad, dtype)}}}};
    return k;
}

// A bias gradient's column reductions: [a, b, cols] summed (and its max taken) over a and b, stored in `dtype`
// (the sum) and float32 (the max over the mean's count: an outer pass computing from the results).
inline Kernel biasGradientLike(int64_t a, int64_t b, int64_t cols, DType dtype) {
    Kernel k;
    k.name = "cwb_red_fused_sum_to_0";
    k.buffers = {buffer("tangents_1", dtype, true, false), buffer("buf0", dtype, false, true), buffer("buf1", DType::Float32, false, true)};
    k.outerRanges = {c(cols)};
    k.reductionRanges = {c(a), c(b)};
    auto value = cast(load(0, (x(1) * c(b) + x(2)) * c(cols) + x(0), dtype), DType::Float32);
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Sum, value}, Reduction{1, ReductionOp::Max, value}}, {}},
                KernelPass{false, {}, {Store{1, x(0), cast(reductionValue(0, DType::Float32), dtype)},
                                       Store{2, x(0), binary(ElementOp::Div, reductionValue(1, DType::Float32), constantFloat(static_cast<double>(a * b), DType::Float32))}}}};
    return k;
}

// A 0-d store of a constant: no outer ranges, no loads.
inline Kernel fillScalar() {
    Kernel k;
    k.name = "cwb_poi_fill_0";
    k.buffers = {buffer("buf0", DType::Int64, false, true)};
    k.passes = {KernelPass{false, {}, {Store{0, c(0), constantInt(7, DType::Int64)}}}};
    return k;
}

}  // namespace eng::inductor::cudatest
