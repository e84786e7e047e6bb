// Pointwise ops with special operand rules: pow (PyTorch's fast paths for common exponents), clamp, where,
// masked_fill, fill_, lerp and the closeness predicates.
#include <array>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "tensor/complex.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"

namespace eng::tensor {

namespace {

Tensor asTensorOf(const Operand& o, DType dtype) {
    return o.isTensor() ? to(o.tensor(), dtype) : scalarTensor(o.scalar(), dtype);
}

// A 0-dim tensor or a number, as a Scalar (masked_fill and fill_ accept both).
Scalar fillValue(const Operand& value, const char* op) {
    if (!value.isTensor()) return value.scalar();
    if (value.tensor().dim() != 0)
        fail(ErrorKind::Runtime, fmt::format("{} only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                                             op, value.tensor().dim()));
    return item(value.tensor());
}

// out = base ** exponent for a scalar exponent, with the exact shortcuts PyTorch's CPU kernel takes.
template <typename T>
void powScalarExponent(const Tensor& out, const Tensor& base, double exponent) {
    using F = OpMath<T>;
    if constexpr (std::is_floating_point_v<F>) {
        const F e = static_cast<F>(exponent);
        if (exponent == 2.0) return mapUnary<T, T>(out, base, [](F v) { return v * v; });
        if (exponent == 3.0) return mapUnary<T, T>(out, base, [](F v) { return v * v * v; });
        if (exponent == 0.5) return mapUnary<T, T>(out, base, [](F v) { return std::sqrt(v); });
        if (exponent == -0.5) return mapUnary<T, T>(out, base, [](F v) { return F(1) / std::sqrt(v); });
        if (exponent == -1.0) return mapUnary<T, T>(out, base, [](F v) { return F(1) / v; });
        if (exponent == -2.0) return mapUnary<T, T>(out, base, [](F v) { return F(1) / (v * v); });
        return mapUnary<T, T>(out, base, [e](F v) { return std::pow(v, e); });
    } else {
        (void)out;
        (void)base;
        (void)exponent;
    }
}

}  // namespace

Tensor pow(const Operand& base, const Operand& exponent) {
    if (activeOpRecorder())
        return recordedOp("pow", [&] { return RecordedCall{{recordedValue(base), recordedValue(exponent)}, {}}; }, [&] { return pow(base, exponent); });
    if (base.isTensor() && !exponent.isTensor()) {
        const Tensor& x = base.tensor();
        const Scalar e = exponent.scalar();
        const DType outType = resultType(base, exponent);
        if (isIntegral(outType, true) && e.isIntegral() && e.toInt() < 0)
            fail(ErrorKind::Runtime, "Integers to negative integer powers are not allowed.");
        if (isFloating(outType)) {
            if (e.toDouble() == 1.0) return clone(to(x, outType));
            const Tensor input = to(x, outType);
            const Tensor inputs[] = {input};
            Tensor out = emptyForOutput(x.sizes(), outType, inputs, x.device());
            if (e.toDouble() == 0.0) return fillInPlace(out, Scalar(int64_t{1}));
            if (cudaops::onCuda(out)) {
                cudaops::powScalar(out, input, e.toDouble());
                return out;
            }
            dispatchDType(outType, [&]<typename T>() { powScalarExponent<T>(out, input, e.toDouble()); });
            return out;
        }
    }
    return binary(BinaryOp::Pow, base, exponent);
}

Tensor clamp(const Tensor& x, const std::optional<Operand>& lo, const std::optional<Operand>& hi) {
    if (!lo && !hi) fail(ErrorKind::Runtime, "torch.clamp: At least one of 'min' or 'max' must not be None");
    if (activeOpRecorder())
        return recordedOp("clamp", [&] { return RecordedCall{{Value(x), lo ? recordedValue(*lo) : Value(), hi ? recordedValue(*hi) : Value()}, {}}; },
                          [&] { return clamp(x, lo, hi); });
    ResultTypeBuilder types;
    types.addTensor(x.dtype(), x.dim());
    for (const std::optional<Operand>* bound : {&lo, &hi}) {
        if (!*bound) continue;
        if ((*bound)->isTensor()) types.addTensor((*bound)->tensor().dtype(), (*bound)->tensor().dim());
        else types.addScalar((*bound)->scalar().kind());
    }
    const DType dtype = types.result();
    if (dtype == DType::Bool) fail(ErrorKind::Runtime, "\"clamp_cpu\" not implemented for 'Bool'");
    Tensor input = to(x, dtype);
    // Missing bounds become +-infinity / the type's extremes so one loop handles every combination.
    Tensor low = lo ? asTensorOf(*lo, dtype) : Tensor();
    Tensor high = hi ? asTensorOf(*hi, dtype) : Tensor();
    const Tensor present[] = {input, low, high};
    const Shape shape = broadcastAll(present);
    input = expandTo(input, shape);
    const Tensor outInputs[] = {input};
    const Device device = cudaops::commonDevice({x, low, high});
    Tensor out = emptyForOutput(shape, dtype, outInputs, device);
    if (cudaops::onCuda(out)) {
        cudaops::clamp(out, input, low.defined() ? expandTo(low, shape) : low, high.defined() ? expandTo(high, shape) : high);
        return out;
    }
    dispatchDType(dtype, [&]<typename T>() {
        using F = OpMath<T>;
        const Tensor lowT = low.defined() ? expandTo(low, shape) : scalarTensor(Scalar(int64_t{0}), dtype).asStrided(shape, Shape(shape.size(), 0), 0);
        const Tensor highT = high.defined() ? expandTo(high, shape) : lowT;
        const bool hasLow = low.defined(), hasHigh = high.defined();
        const std::array<Tensor, 4> ops{out, input, lowT, highT};
        ElementLoop loop(ops);
        loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
            for (int64_t i = 0; i < n; ++i) {
                F v = static_cast<F>(*reinterpret_cast<const T*>(p[1] + i * s[1]));
                if constexpr (std::is_floating_point_v<F>) {
                    if (v != v) {
                        *reinterpret_cast<T*>(p[0] + i * s[0]) = static_cast<T>(v);
                        continue;
                    }
                }
                if (hasLow) {
                    const F l = static_cast<F>(*reinterpret_cast<const T*>(p[2] + i * s[2]));
                    v = l != l ? l : (v < l ? l : v);
                }
                if (hasHigh) {
                    const F h = static_cast<F>(*reinterpret_cast<const T*>(p[3] + i * s[3]));
                    v = h != h ? h : (v > h ? h : v);
                }
                *reinterpret_cast<T*>(p[0] + i * s[0]) = static_cast<T>(v);
            }
        });
    });
    return out;
}

const Tensor& clampInPlace(const Tensor& self, const std::optional<Operand>& lo, const std::optional<Operand>& hi) {
    Tensor result = clamp(self, lo, hi);
    if (!canCast(result.dtype(), self.dtype()))
        fail(ErrorKind::Runtime, fmt::format("result type {} can't be cast to the desired output type {}",
                                             dtypeKernelName(result.dtype()), dtypeKernelName(self.dtype())));
    if (result.sizes() != self.sizes())
        fail(ErrorKind::Runtime, fmt::format("output with shape {} doesn't match the broadcast shape {}",
                                             shapeStr(self.sizes()), shapeStr(result.sizes())));
    copyInto(self, result);
    return self;
}

Tensor where(const Tensor& condition, const Operand& a, const Operand& b) {
    if (activeOpRecorder())
        return recordedOp("where", [&] { return RecordedCall{{Value(condition), recordedValue(a), recordedValue(b)}, {}}; }, [&] { return where(condition, a, b); });
    if (condition.dtype() != DType::Bool)
        fail(ErrorKind::Runtime, fmt::format("where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                                             dtypeKernelName(condition.dtype())));
    const DType dtype = resultType(a, b);
    Tensor x = asTensorOf(a, dtype);
    Tensor y = asTensorOf(b, dtype);
    const Device device = cudaops::commonDevice({condition, x, y});
    const Tensor all[] = {condition, x, y};
    const Shape shape = broadcastAll(all);
    const Tensor cond = expandTo(condition, shape);
    x = expandTo(x, shape);
    y = expandTo(y, shape);
    const Tensor layoutFrom[] = {cond, x, y};
    Tensor out = emptyForOutput(shape, dtype, layoutFrom, device);
    if (cudaops::onCuda(out)) {
        cudaops::where(out, cond, x, y);
        return out;
    }
    dispatchDType(dtype, [&]<typename T>() {
        const std::array<Tensor, 4> ops{out, cond, x, y};
        ElementLoop loop(ops);
        loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
            for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                             ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                             : *reinterpret_cast<const T*>(p[3] + i * s[3]);
        });
    });
    return out;
}

const Tensor& maskedFillInPlace(const Tensor& self, const Tensor& mask, const Operand& value) {
    if (mask.dtype() != DType::Bool)
        fail(ErrorKind::Runtime, fmt::format("masked_fill_ only supports boolean masks, but got mask with dtype {}",
                                             dtypeName(mask.dtype())));
    const Scalar fill = fillValue(value, "masked_fill_");
    if (broadcastShapes(self.sizes(), mask.sizes()) != self.sizes())
        fail(ErrorKind::Runtime, fmt::format("The expanded size of the mask {} must match the tensor size {}",
                                             shapeStr(mask.sizes()), shapeStr(self.sizes())));
    const Tensor expandedMask = expandTo(mask, self.sizes());
    if (cudaops::commonDevice({self, mask}) != normalizeDevice(self.device())) cudaops::deviceMismatch(self.device(), mask.device());
    if (cudaops::onCuda(self)) {
        cudaops::maskedFill(self, expandedMask, fill);
        return self;
    }
    dispatchDType(self.dtype(), [&]<typename T>() {
        const T v = fill.to<T>();
        const std::array<Tensor, 2> ops{self, expandedMask};
        ElementLoop loop(ops);
        loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
            for (int64_t i = 0; i < n; ++i)
                if (*reinterpret_cast<const bool*>(p[1] + i * s[1])) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
        });
    });
    return self;
}

Tensor maskedFill(const Tensor& x, const Tensor& mask, const Operand& value) {
    if (activeOpRecorder())
        return recordedOp("masked_fill", [&] { return RecordedCall{{Value(x), Value(mask), recordedValue(value)}, {}}; }, [&] { return maskedFill(x, mask, value); });
    // The result takes the broadcast shape of x and mask, as torch.masked_fill does.
    const Shape shape = broadcastShapes(x.sizes(), mask.sizes());
    Tensor out = clone(expandTo(x, shape));
    if (!out.isContiguous()) out = contiguous(out);
    return maskedFillInPlace(out, mask, value);
}

const Tensor& fillInPlace(const Tensor& self, const Operand& value) {
    if (isComplex(self.dtype()) || (value.isTensor() && isComplex(value.tensor().dtype()))) {
        if (value.isTensor()) {
            if (value.tensor().dim() != 0) fillValue(value, "fill_");  // PyTorch's error for a value with dims
            complexCopy(self, value.tensor());
        } else {
            complexFill(self, value.scalar());
        }
        return self;
    }
    const Scalar fill = fillValue(value, "fill_");
    if (cudaops::onCuda(self)) {
        cudaops::fill(self, fill);
        return self;
    }
    dispatchDType(self.dtype(), [&]<typename T>() {
        const T v = fill.to<T>();
        const std::array<Tensor, 1> ops{self};
        ElementLoop loop(ops);
        loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
            if (s[0] == sizeof(T)) {
                T* o = reinterpret_cast<T*>(p[0]);
                for (int64_t i = 0; i < n; ++i) o[i] = v;
            } else {
                for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
            }
        });
    });
    return self;
}

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight) {
    return add(start, mul(weight, sub(end, start)));
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equalNan) {
    if (a.dtype() != b.dtype())
        fail(ErrorKind::Runtime, fmt::format("{} did not match {}", dtypeKernelName(a.dtype()), dtypeKernelName(b.dtype())));
    // The comparison below is a CPU kernel: CUDA operands take the host route (it read device memory on the host).
    if (const Device device = cudaops::commonDevice({a, b}); !device.isCpu())
        return hostroute::backTo(device, isclose(hostroute::toHost(a), hostroute::toHost(b), rtol, atol, equalNan));
    const Tensor x = to(a, DType::Float64);
    const Tensor y = to(b, DType::Float64);
    const Shape shape = broadcastShapes(x.sizes(), y.sizes());
    Tensor out = empty(shape, DType::Bool);
    mapBinary<bool, double>(out, expandTo(x, shape), expandTo(y, shape), [=](double u, double v) {
        if (u == v) return true;
        if (u != u || v != v) return equalNan && u != u && v != v;
        if (!std::isfinite(u) || !std::isfinite(v)) return false;
        return std::abs(u - v) <= atol + rtol * std::abs(v);
    });
    return out;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equalNan) {
    return item(all(isclose(a, b, rtol, atol, equalNan))).toBool();
}

bool equal(const Tensor& a, const Tensor& b) {
    if (a.sizes() != b.sizes()) return false;
    if (a.numel() == 0) return true;
    return item(all(eq(a, b))).toBool();
}

}  // namespace eng::tensor
