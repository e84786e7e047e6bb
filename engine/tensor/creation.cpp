// Factory functions over the device backends; fills go through one typed loop per dtype.
#include "tensor/creation.h"

#include <cmath>

#include <fmt/format.h>

#include "tensor/complex.h"
#include "tensor/conversion.h"
#include "tensor/cuda_kernels.h"
#include "tensor/op_recorder.h"

namespace eng::tensor {

namespace {

template <typename T>
void fillContiguous(const Tensor& t, T value) {
    T* data = t.dataAs<T>();
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) data[i] = value;
}

void fillWith(const Tensor& t, Scalar value) {
    if (isComplex(t.dtype())) return complexFill(t, value);
    dispatchDType(t.dtype(), [&]<typename T>() { fillContiguous<T>(t, value.to<T>()); });
}

Tensor finish(Tensor t, const TensorOptions& options) {
    if (options.requiresGrad) t.setRequiresGrad(true);
    return t;
}

void checkSizes(const Shape& sizes) {
    for (int64_t s : sizes)
        if (s < 0)
            fail(ErrorKind::Runtime, fmt::format("Trying to create tensor with negative dimension {}: {}", s, shapeStr(sizes)));
}

// Builds on the CPU and moves to the requested device, so that factories work for any backend with copies.
Tensor onDevice(Tensor cpuTensor, Device device) {
    if (device.isCpu()) return cpuTensor;
    return to(cpuTensor, std::nullopt, device);
}

}  // namespace

Tensor emptyStrided(const Shape& sizes, const Shape& strides, DType dtype, Device device) {
    checkSizes(sizes);
    int64_t extent = 1;
    bool anyEmpty = false;
    for (size_t i = 0; i < sizes.size(); ++i) {
        anyEmpty = anyEmpty || sizes[i] == 0;
        extent += (sizes[i] - 1) * strides[i];
    }
    if (anyEmpty) extent = 0;
    auto storage = std::make_shared<Storage>(static_cast<size_t>(extent) * itemSize(dtype), device);
    return Tensor(std::move(storage), sizes, strides, 0, dtype);
}

Tensor empty(const Shape& sizes, DType dtype, Device device) {
    return emptyStrided(sizes, contiguousStrides(sizes), dtype, device);
}

Tensor full(const Shape& sizes, Scalar fill, const TensorOptions& options) {
    const DType dtype = options.dtype.value_or(fill.defaultDType());
    if (options.device && options.device->type() == DeviceType::CUDA) {
        Tensor onGpu = empty(sizes, dtype, *options.device);
        cudaops::fill(onGpu, fill);
        return finish(onGpu, options);
    }
    Tensor t = empty(sizes, dtype);
    fillWith(t, fill);
    return finish(onDevice(t, options.device.value_or(kCpu)), options);
}

Tensor zeros(const Shape& sizes, const TensorOptions& options) {
    TensorOptions o = options;
    o.dtype = options.dtype.value_or(kDefaultFloat);
    return full(sizes, Scalar(int64_t{0}), o);
}

Tensor ones(const Shape& sizes, const TensorOptions& options) {
    TensorOptions o = options;
    o.dtype = options.dtype.value_or(kDefaultFloat);
    return full(sizes, Scalar(int64_t{1}), o);
}

Tensor scalarTensor(Scalar value, std::optional<DType> dtype, Device device) {
    Tensor t = empty({}, dtype.value_or(value.defaultDType()));
    fillWith(t, value);
    return onDevice(t, device);
}

Tensor arange(Scalar start, Scalar end, Scalar step, const TensorOptions& options) {
    const bool integral = start.isIntegral() && end.isIntegral() && step.isIntegral();
    const DType dtype = options.dtype.value_or(integral ? DType::Int64 : kDefaultFloat);
    const double stepValue = step.toDouble();
    if (stepValue == 0.0) fail(ErrorKind::Runtime, "step must be nonzero");
    const double span = end.toDouble() - start.toDouble();
    if (!std::isfinite(start.toDouble()) || !std::isfinite(end.toDouble()))
        fail(ErrorKind::Runtime, fmt::format("unsupported range: {} -> {}", start.str(), end.str()));
    if ((stepValue > 0 && span < 0) || (stepValue < 0 && span > 0))
        fail(ErrorKind::Runtime, "upper bound and larger bound inconsistent with step sign");
    int64_t count = 0;
    if (integral && isIntegral(dtype, true)) {
        // Exact integer arithmetic avoids double rounding for large int64 ranges.
        const int64_t s = start.toInt(), e = end.toInt(), st = step.toInt();
        count = st > 0 ? (e - s + st - 1) / st : (s - e + (-st) - 1) / (-st);
    } else {
        count = static_cast<int64_t>(std::ceil(span / stepValue));
    }
    count = std::max<int64_t>(count, 0);
    Tensor t = empty({count}, dtype);
    dispatchDType(dtype, [&]<typename T>() {
        T* data = t.dataAs<T>();
        if constexpr (std::is_integral_v<T>) {
            if (integral) {
                const int64_t s = start.toInt(), st = step.toInt();
                for (int64_t i = 0; i < count; ++i) data[i] = static_cast<T>(s + st * i);
                return;
            }
        }
        // Computed in double (PyTorch's accumulate type for float), then rounded to T.
        const double s = start.toDouble();
        for (int64_t i = 0; i < count; ++i) data[i] = castValue<T>(s + stepValue * static_cast<double>(i));
    });
    return finish(onDevice(t, options.device.value_or(kCpu)), options);
}

Tensor arange(Scalar end, const TensorOptions& options) { return arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), options); }

Tensor linspace(Scalar start, Scalar end, int64_t steps, const TensorOptions& options) {
    if (steps < 0) fail(ErrorKind::Runtime, "number of steps must be non-negative");
    const DType dtype = options.dtype.value_or(kDefaultFloat);
    Tensor t = empty({steps}, dtype);
    dispatchDType(dtype, [&]<typename T>() {
        // Floats step in their own precision (as PyTorch's kernel does); integers in double. The second half
        // counts back from the end so that the last value is exactly `end`.
        using Step = std::conditional_t<std::is_integral_v<T>, double, OpMath<T>>;
        T* data = t.dataAs<T>();
        if (steps == 1) {
            data[0] = start.to<T>();
            return;
        }
        const Step first = static_cast<Step>(start.toDouble());
        const Step last = static_cast<Step>(end.toDouble());
        const Step step = (last - first) / static_cast<Step>(steps - 1);
        const int64_t halfway = steps / 2;
        for (int64_t i = 0; i < steps; ++i) {
            const Step value = i < halfway ? first + step * static_cast<Step>(i)
                                           : last - step * static_cast<Step>(steps - i - 1);
            data[i] = castValue<T>(value);
        }
    });
    return finish(onDevice(t, options.device.value_or(kCpu)), options);
}

Tensor eye(int64_t n, std::optional<int64_t> m, const TensorOptions& options) {
    const int64_t cols = m.value_or(n);
    if (n < 0 || cols < 0) fail(ErrorKind::Runtime, fmt::format("n must be greater or equal to 0, got {}", n < 0 ? n : cols));
    TensorOptions o = options;
    o.device = kCpu;
    o.requiresGrad = false;
    Tensor t = zeros({n, cols}, o);
    dispatchDType(t.dtype(), [&]<typename T>() {
        T* data = t.dataAs<T>();
        for (int64_t i = 0; i < std::min(n, cols); ++i) data[i * cols + i] = castValue<T>(int64_t{1});
    });
    return finish(onDevice(t, options.device.value_or(kCpu)), options);
}

Tensor emptyLike(const Tensor& t, const TensorOptions& options) {
    const DType dtype = options.dtype.value_or(t.dtype());
    const Shape strides = t.isNonOverlappingAndDense() ? t.strides() : contiguousStrides(t.sizes());
    Tensor out = emptyStrided(t.sizes(), strides, dtype, options.device.value_or(t.device()));
    return finish(out, options);
}

Tensor fullLike(const Tensor& t, Scalar fill, const TensorOptions& options) {
    if (activeOpRecorder()) {
        auto call = [&] {
            RecordedCall c{{Value(t), Value(fill)}, {}};
            if (options.dtype) c.kwargs.emplace_back("dtype", Value(*options.dtype));
            if (options.device) c.kwargs.emplace_back("device", Value(*options.device));
            return c;
        };
        return recordedOp("full_like", call, [&] { return fullLike(t, fill, options); });
    }
    TensorOptions cpuOptions = options;
    cpuOptions.device = kCpu;
    Tensor out = emptyLike(t, cpuOptions);
    // A dense layout may be permuted, but filling every storage slot is the same.
    if (isComplex(out.dtype())) complexFill(out.asStrided({out.numel()}, {1}, 0), fill);
    else dispatchDType(out.dtype(), [&]<typename T>() { fillContiguous<T>(out.asStrided({out.numel()}, {1}, 0), fill.to<T>()); });
    return onDevice(out, options.device.value_or(t.device()));
}

Tensor zerosLike(const Tensor& t, const TensorOptions& options) { return fullLike(t, Scalar(int64_t{0}), options); }
Tensor onesLike(const Tensor& t, const TensorOptions& options) { return fullLike(t, Scalar(int64_t{1}), options); }

namespace {

template <typename Value>
Tensor fromValues(const std::vector<Value>& values, const Shape& sizes, DType dtype) {
    if (isComplex(dtype)) return to(fromValues(values, sizes, complexValueType(dtype)), dtype);  // real numbers: imaginary 0
    Tensor t = empty(sizes, dtype);
    if (static_cast<int64_t>(values.size()) != t.numel())
        fail(ErrorKind::Value, fmt::format("{} values for shape {}", values.size(), shapeStr(sizes)));
    dispatchDType(dtype, [&]<typename T>() {
        T* data = t.dataAs<T>();
        for (size_t i = 0; i < values.size(); ++i) data[i] = castValue<T>(values[i]);
    });
    return t;
}

}  // namespace

Tensor fromDoubles(const std::vector<double>& values, const Shape& sizes, DType dtype) { return fromValues(values, sizes, dtype); }
Tensor fromInts(const std::vector<int64_t>& values, const Shape& sizes, DType dtype) { return fromValues(values, sizes, dtype); }

namespace {

// Every element of `t`, read in row-major order through its op-math type and converted to R.
template <typename R>
std::vector<R> elementsAs(const Tensor& t) {
    Tensor c = contiguous(to(t, std::nullopt, kCpu));
    std::vector<R> out(static_cast<size_t>(c.numel()));
    dispatchDType(c.dtype(), [&]<typename T>() {
        const T* data = c.dataAs<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = castValue<R>(static_cast<OpMath<T>>(data[i]));
    });
    return out;
}

}  // namespace

std::vector<double> toDoubles(const Tensor& t) { return elementsAs<double>(t); }

std::vector<int64_t> toInts(const Tensor& t) { return elementsAs<int64_t>(t); }

}  // namespace eng::tensor

