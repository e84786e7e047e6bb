// Pointwise ops with PyTorch's broadcasting and type promotion: arithmetic (+ - * / // % **), comparisons,
// logical and bitwise ops, where/clamp/masked_fill, unary math and activations, and in-place variants.
#pragma once

#include <optional>
#include <string_view>
#include <variant>

#include "ops/elementwise.h"
#include "tensor/tensor.h"

namespace eng::tensor {

// One side of a binary op: a tensor or a Python number (which promotes as a "wrapped number").
class Operand {
public:
    Operand(Tensor t) : value_(std::move(t)) {}  // NOLINT(google-explicit-constructor)
    Operand(Scalar s) : value_(s) {}  // NOLINT(google-explicit-constructor)
    Operand(double d) : value_(Scalar(d)) {}  // NOLINT(google-explicit-constructor)
    Operand(int64_t i) : value_(Scalar(i)) {}  // NOLINT(google-explicit-constructor)
    Operand(int i) : value_(Scalar(i)) {}  // NOLINT(google-explicit-constructor)
    Operand(bool b) : value_(Scalar(b)) {}  // NOLINT(google-explicit-constructor)

    bool isTensor() const { return std::holds_alternative<Tensor>(value_); }
    const Tensor& tensor() const { return std::get<Tensor>(value_); }
    const Scalar& scalar() const { return std::get<Scalar>(value_); }

private:
    std::variant<Tensor, Scalar> value_;
};

// The binary ops of ops/elementwise.def.
enum class BinaryOp {
#define CWB_ELEMENTWISE_BINARY(Name, ...) Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
};

// torch.result_type over operands (tensors by rank, numbers as wrapped numbers).
DType resultType(std::span<const Operand> operands);
DType resultType(const Operand& a, const Operand& b);
// torch.can_cast: no float to integral, no non-bool to bool.
bool canCast(DType from, DType to);

// out-of-place: a op b; with `into`, writes there (in-place forms) after PyTorch's shape and cast checks.
Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const Tensor* into = nullptr);

// out= straight into `out` (PyTorch's out variants write it; see outTakesResult for when): true when written,
// false with nothing written, and then the caller computes a fresh result and copies it.
bool binaryInto(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out);

// Whether add/sub's alpha is the integer 1 (other is added as it is, no scaling product first).
bool isUnitAlpha(Scalar alpha);
// div's op for a rounding_mode (None, "trunc", "floor"); PyTorch's ValueError for another.
BinaryOp divOpFor(std::optional<std::string_view> roundingMode);

Tensor add(const Operand& a, const Operand& b, Scalar alpha = Scalar(int64_t{1}));
Tensor sub(const Operand& a, const Operand& b, Scalar alpha = Scalar(int64_t{1}));
inline Tensor mul(const Operand& a, const Operand& b) { return binary(BinaryOp::Mul, a, b); }
// roundingMode: none (true division), "trunc" or "floor".
Tensor div(const Operand& a, const Operand& b, std::optional<std::string_view> roundingMode = std::nullopt);
inline Tensor floorDivide(const Operand& a, const Operand& b) { return binary(BinaryOp::FloorDiv, a, b); }
inline Tensor remainder(const Operand& a, const Operand& b) { return binary(BinaryOp::Mod, a, b); }
Tensor pow(const Operand& base, const Operand& exponent);
inline Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Maximum, a, b); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Minimum, a, b); }
inline Tensor eq(const Operand& a, const Operand& b) { return binary(BinaryOp::Eq, a, b); }
inline Tensor ne(const Operand& a, const Operand& b) { return binary(BinaryOp::Ne, a, b); }
inline Tensor lt(const Operand& a, const Operand& b) { return binary(BinaryOp::Lt, a, b); }
inline Tensor le(const Operand& a, const Operand& b) { return binary(BinaryOp::Le, a, b); }
inline Tensor gt(const Operand& a, const Operand& b) { return binary(BinaryOp::Gt, a, b); }
inline Tensor ge(const Operand& a, const Operand& b) { return binary(BinaryOp::Ge, a, b); }
inline Tensor logicalAnd(const Operand& a, const Operand& b) { return binary(BinaryOp::LogicalAnd, a, b); }
inline Tensor logicalOr(const Operand& a, const Operand& b) { return binary(BinaryOp::LogicalOr, a, b); }
inline Tensor logicalXor(const Operand& a, const Operand& b) { return binary(BinaryOp::LogicalXor, a, b); }

// In-place: self op= other, returning self (RuntimeError when the result type can't be cast to self's).
const Tensor& addInPlace(const Tensor& self, const Operand& other, Scalar alpha = Scalar(int64_t{1}));
const Tensor& subInPlace(const Tensor& self, const Operand& other, Scalar alpha = Scalar(int64_t{1}));
const Tensor& binaryInPlace(BinaryOp op, const Tensor& self, const Operand& other);

// The math functions of ops/unary_math.def, then the unary ops of ops/elementwise.def.
enum class UnaryOp {
#define CWB_UNARY_MATH(Name, function, integers, llvm) Name,
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, ...) Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
};
// An op's row of ops/elementwise.def (a math function of ops/unary_math.def: Same or Promote, bools allowed,
// kernel "<function>_cpu", call "<function>").
struct ElementwiseRow {
    ops::ElementTyping typing;
    bool bools;               // false: bool tensors are refused
    std::string_view kernel;  // PyTorch's CPU kernel, as "not implemented" errors name it
    std::string_view call;    // torch's call (ops::torchCallOf takes it apart)
};
const ElementwiseRow& rowOf(UnaryOp op);
const ElementwiseRow& rowOf(BinaryOp op);

// y = op(x); the math functions (ops/unary_math.def) compute in the default float type for integral inputs, as
// PyTorch does, except floor/ceil/trunc, which return integral inputs unchanged.
Tensor unary(UnaryOp op, const Tensor& x);
const Tensor& unaryInPlace(UnaryOp op, const Tensor& self);
bool unaryInto(UnaryOp op, const Tensor& x, const Tensor& out);
// Whether a float loop computing `shape` x `dtype` from `inputs` (as the kernel reads them) may write out= straight
// into `out`: a CPU tensor of that shape and dtype laid out as the fresh result would be (so the loop, its chunks and
// every bit it writes are the fresh result's), each input either `out` itself or sharing no memory with it, and no op
// recorder nor deferred fills active (the capture's own paths). Other cases keep the fresh result and its copy.
bool outTakesResult(const Tensor& out, const Shape& shape, DType dtype, std::span<const Tensor> inputs);
// approximate: "none" (erf form) or "tanh".
Tensor gelu(const Tensor& x, std::string_view approximate = "none");
Tensor leakyRelu(const Tensor& x, double negativeSlope = 0.01);

// clamp with optional scalar or tensor bounds; the result type promotes over x and the bounds.
Tensor clamp(const Tensor& x, const std::optional<Operand>& lo, const std::optional<Operand>& hi);
const Tensor& clampInPlace(const Tensor& self, const std::optional<Operand>& lo, const std::optional<Operand>& hi);
Tensor where(const Tensor& condition, const Operand& a, const Operand& b);
Tensor maskedFill(const Tensor& x, const Tensor& mask, const Operand& value);
const Tensor& maskedFillInPlace(const Tensor& self, const Tensor& mask, const Operand& value);
// Tensor.fill_ / zero_.
const Tensor& fillInPlace(const Tensor& self, const Operand& value);
Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight);
// torch.allclose / isclose with PyTorch's defaults.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equalNan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equalNan = false);
bool equal(const Tensor& a, const Tensor& b);

}  // namespace eng::tensor
