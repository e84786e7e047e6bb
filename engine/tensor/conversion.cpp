// copy_, clone, contiguous and to(): one casting loop per (source, destination) dtype pair, with a memcpy
// fast path, and host staging for copies that cross devices.
#include "tensor/conversion.h"

#include <array>
#include <cstring>

#include <fmt/format.h>

#include "tensor/complex.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"

namespace eng::tensor {

namespace {

void copySameDevice(const Tensor& dst, const Tensor& src) {
    if (dst.dtype() == src.dtype() && dst.isContiguous() && src.isContiguous() && dst.sizes() == src.sizes()) {
        if (dst.numel() == 0 || dst.data() == src.data()) return;
        // Copies within one storage may overlap, and then only memmove's one pass gives the right result.
        if (dst.sharesStorageWith(src)) {
            std::memmove(dst.data(), src.data(), dst.nbytes());
            return;
        }
        auto* to = static_cast<char*>(dst.data());
        const auto* from = static_cast<const char*>(src.data());
        parallelRanges(static_cast<int64_t>(dst.nbytes()), kEagerGrain * 4, [&](int64_t begin, int64_t end) {
            std::memcpy(to + begin, from + begin, static_cast<size_t>(end - begin));
        }, 4096, elementwiseRangesPerThread());
        return;
    }
    const Tensor expanded = expandTo(src, dst.sizes());
    dispatchDType(dst.dtype(), [&]<typename Out>() {
        dispatchDType(src.dtype(), [&]<typename In>() {
            const std::array<Tensor, 2> ops{dst, expanded};
            ElementLoop loop(ops);
            loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
                if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
                    auto* o = reinterpret_cast<Out*>(p[0]);
                    const auto* a = reinterpret_cast<const In*>(p[1]);
                    for (int64_t i = 0; i < n; ++i) o[i] = castValue<Out>(a[i]);
                } else {
                    for (int64_t i = 0; i < n; ++i)
                        *reinterpret_cast<Out*>(p[0] + i * s[0]) = castValue<Out>(*reinterpret_cast<const In*>(p[1] + i * s[1]));
                }
            });
        });
    });
}

}  // namespace

const Tensor& copyInto(const Tensor& dst, const Tensor& src) {
    if (const Shape together = broadcastShapes(dst.sizes(), src.sizes()); together != dst.sizes())
        fail(ErrorKind::Runtime, fmt::format("output with shape {} doesn't match the broadcast shape {}",
                                             shapeStr(dst.sizes()), shapeStr(together)));
    if (isComplex(dst.dtype()) || isComplex(src.dtype())) {
        complexCopy(dst, src);
        return dst;
    }
    if (normalizeDevice(dst.device()) == normalizeDevice(src.device())) {
        if (cudaops::onCuda(dst)) cudaops::copy(dst, expandTo(src, dst.sizes()));
        else copySameDevice(dst, src);
        return dst;
    }
    if (dst.device().isCpu()) {
        // Device to host: bring the source over as it is stored, then copy on the host.
        const Tensor source = contiguous(src);
        Tensor staged = empty(source.sizes(), source.dtype());
        backendFor(source.device()).copyToHost(staged.data(), source.data(), source.nbytes(), source.device().index());
        copySameDevice(dst, staged);
        return dst;
    }
    // Host (or another device) to device: materialize the final bytes on the host, then one transfer. A
    // strided destination gets them through a contiguous device buffer and a device-side copy.
    if (!dst.isContiguous()) {
        Tensor landing = empty(dst.sizes(), dst.dtype(), dst.device());
        copyInto(landing, src);
        return copyInto(dst, landing);
    }
    const Tensor hostSource = src.device().isCpu() ? src : to(src, std::nullopt, kCpu);
    Tensor staged = empty(dst.sizes(), dst.dtype());
    copySameDevice(staged, hostSource);
    backendFor(dst.device()).copyFromHost(dst.data(), staged.data(), staged.nbytes(), dst.device().index());
    return dst;
}

Tensor clone(const Tensor& t) {
    Tensor out = emptyLike(t, TensorOptions{t.dtype(), t.device(), false});
    return copyInto(out, t);
}

Tensor contiguous(const Tensor& t) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.contiguous", [&] { return RecordedCall{{Value(t)}, {}}; }, [&] { return contiguous(t); });
    if (t.isContiguous()) return t;
    Tensor out = empty(t.sizes(), t.dtype(), t.device());
    return copyInto(out, t);
}

Tensor to(const Tensor& t, std::optional<DType> dtype, std::optional<Device> device, bool copy) {
    if (castsRecorded())
        return recordedOp(
            "Tensor.to", [&] { return RecordedCall{{Value(t), device ? Value(*device) : Value(), dtype ? Value(*dtype) : Value()}, {{"copy", Value(copy)}}}; },
            [&] { return to(t, dtype, device, copy); });
    const DType targetType = dtype.value_or(t.dtype());
    const Device targetDevice = normalizeDevice(device.value_or(t.device()));
    if (!copy && targetType == t.dtype() && targetDevice == normalizeDevice(t.device())) return t;
    backendFor(targetDevice);  // "cuda unavailable" before any work
    Tensor out = emptyLike(t, TensorOptions{targetType, targetDevice, false});
    return copyInto(out, t);
}

Scalar elementAt(const Tensor& t, int64_t flatIndex) {
    int64_t offset = 0;
    int64_t remaining = flatIndex;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
        const auto i = static_cast<size_t>(d);
        offset += (remaining % t.sizes()[i]) * t.strides()[i];
        remaining /= t.sizes()[i];
    }
    if (!t.device().isCpu()) {
        Tensor element = t.asStrided({}, {}, t.storageOffset() + offset);
        return elementAt(to(element, std::nullopt, kCpu), 0);
    }
    return dispatchDType(t.dtype(), [&]<typename T>() -> Scalar {
        const T value = t.dataAs<T>()[offset];
        if constexpr (std::is_same_v<T, bool>) return Scalar(value);
        else if constexpr (std::is_integral_v<T>) return Scalar(static_cast<int64_t>(value));
        else return Scalar(static_cast<double>(static_cast<OpMath<T>>(value)));
    });
}

Scalar item(const Tensor& t) {
    if (t.numel() != 1)
        fail(ErrorKind::Runtime, fmt::format("a Tensor with {} elements cannot be converted to Scalar", t.numel()));
    return elementAt(t, 0);
}

}  // namespace eng::tensor
