// Complex tensors: a complex element is stored as two floats of its value type, so views (view_as_real, .real,
// .imag) are float geometry over the same storage, and each op with a complex form runs one std::complex loop
// over contiguous operands, with PyTorch's promotion, messages and formulas (c10::complex's division). The loops
// run on the host: CUDA operands go through host copies (host_route.h), so a GPU computes what the CPU does.
#include "tensor/complex.h"

#include <cmath>
#include <complex>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/host_route.h"
#include "tensor/iteration.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

// Calls body.template operator()<V>() with V the value type (float, double) of a complex dtype.
template <typename Body>
decltype(auto) dispatchComplex(DType dtype, Body&& body) {
    if (dtype == DType::Complex128) return body.template operator()<double>();
    return body.template operator()<float>();
}

// The float view [..., 2] of a complex tensor, without checks.
Tensor pairsOf(const Tensor& x) {
    Shape sizes = x.sizes(), strides = x.strides();
    for (int64_t& s : strides) s *= 2;
    sizes.push_back(2);
    strides.push_back(1);
    return Tensor(x.storage(), std::move(sizes), std::move(strides), x.storageOffset() * 2, complexValueType(x.dtype()));
}

// The operand as a contiguous complex tensor of `dtype`, broadcast to `shape`.
Tensor denseComplex(const Operand& o, DType dtype, const Shape& shape, Device device) {
    Tensor t = o.isTensor() ? o.tensor() : scalarTensor(o.scalar(), std::nullopt, device);
    Tensor out = empty(shape, dtype, device);
    complexCopy(out, expandTo(t, shape));
    return out;
}

template <typename V>
std::complex<V> divide(std::complex<V> x, std::complex<V> y) {
    // c10::complex's operator/ (numpy's scaling): no overflow of c*c + d*d.
    const V a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
    const V absC = std::abs(c), absD = std::abs(d);
    if (absC >= absD) {
        if (absC == V(0) && absD == V(0)) return {a / absC, b / absD};
        const V rat = d / c;
        const V scl = V(1.0) / (c + d * rat);
        return {(a + b * rat) * scl, (b - a * rat) * scl};
    }
    const V rat = c / d;
    const V scl = V(1.0) / (d + c * rat);
    return {(a * rat + b) * scl, (b * rat - a) * scl};
}

[[noreturn]] void noComplexForm(std::string_view kernel, DType dtype) {
    fail(ErrorKind::NotImplemented, fmt::format("\"{}\" not implemented for '{}'", kernel, dtypeKernelName(dtype)));
}

void checkFloatParts(const Tensor& real, const Tensor& imag, std::string_view what) {
    if (real.dtype() != imag.dtype())
        fail(ErrorKind::Runtime, fmt::format("Expected object of scalar type {} but got scalar type {} for second argument",
                                             dtypeKernelName(real.dtype()), dtypeKernelName(imag.dtype())));
    if (real.dtype() != DType::Float32 && real.dtype() != DType::Float64 && real.dtype() != DType::Float16)
        fail(ErrorKind::Runtime, fmt::format("Expected both inputs to be Half, Float or Double tensors but got {} and {}",
                                             dtypeKernelName(real.dtype()), dtypeKernelName(imag.dtype())));
    (void)what;
}

// The device a complex loop's result belongs on: a CUDA operand's, else the CPU.
Device loopDevice(const Operand& a, const Operand& b) {
    for (const Operand* o : {&a, &b})
        if (o->isTensor() && !o->tensor().device().isCpu()) return o->tensor().device();
    return a.isTensor() ? a.tensor().device() : b.tensor().device();
}

Operand onHost(const Operand& o) { return o.isTensor() ? Operand(hostroute::toHost(o.tensor())) : o; }

// A new complex tensor whose element i is make(real[i], imag[i]) over the broadcast operands.
template <typename Make>
Tensor fromParts(const Tensor& first, const Tensor& second, Make make) {
    checkFloatParts(first, second, "");
    if (const Device device = loopDevice(first, second); !device.isCpu())
        return hostroute::backTo(device, fromParts(hostroute::toHost(first), hostroute::toHost(second), make));
    const Shape shape = broadcastShapes(first.sizes(), second.sizes());
    const DType valueType = first.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
    const Tensor a = contiguous(to(expandTo(first, shape), valueType));
    const Tensor b = contiguous(to(expandTo(second, shape), valueType));
    Tensor out = empty(shape, complexTypeOf(valueType), first.device());
    dispatchComplex(out.dtype(), [&]<typename V>() {
        const V* pa = a.dataAs<const V>();
        const V* pb = b.dataAs<const V>();
        auto* po = out.dataAs<std::complex<V>>();
        for (int64_t i = 0; i < out.numel(); ++i) po[i] = make(pa[i], pb[i]);
    });
    return out;
}

}  // namespace

Tensor viewAsReal(const Tensor& x) {
    if (!isComplex(x.dtype())) fail(ErrorKind::Runtime, "view_as_real is only supported for complex tensors");
    return pairsOf(x);
}

Tensor viewAsComplex(const Tensor& x) {
    if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64)
        fail(ErrorKind::Runtime, fmt::format("view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: {}",
                                             dtypeKernelName(x.dtype())));
    if (x.dim() == 0 || x.sizes().back() != 2) fail(ErrorKind::Runtime, "Tensor must have a last dimension of size 2");
    if (x.strides().back() != 1) fail(ErrorKind::Runtime, "Tensor must have a last dimension with stride 1");
    Shape sizes(x.sizes().begin(), x.sizes().end() - 1), strides(x.strides().begin(), x.strides().end() - 1);
    for (int64_t& s : strides) {
        if (s % 2 != 0) fail(ErrorKind::Runtime, "Tensor must have a stride divisible by 2 for all but last dimension");
        s /= 2;
    }
    if (x.storageOffset() % 2 != 0) fail(ErrorKind::Runtime, "Tensor must have a storage_offset divisible by 2");
    return Tensor(x.storage(), std::move(sizes), std::move(strides), x.storageOffset() / 2, complexTypeOf(x.dtype()));
}

Tensor realPart(const Tensor& x) { return isComplex(x.dtype()) ? select(pairsOf(x), -1, 0) : x; }

Tensor imagPart(const Tensor& x) {
    if (!isComplex(x.dtype())) fail(ErrorKind::Runtime, "imag is not implemented for tensors with non-complex dtypes.");
    return select(pairsOf(x), -1, 1);
}

Tensor complexFromParts(const Tensor& real, const Tensor& imag) {
    return fromParts(real, imag, []<typename V>(V re, V im) { return std::complex<V>(re, im); });
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
    return fromParts(abs, angle, []<typename V>(V r, V theta) { return std::complex<V>(r * std::cos(theta), r * std::sin(theta)); });
}

Tensor conj(const Tensor& x) {
    if (!isComplex(x.dtype())) return x;
    Tensor out = clone(x);
    Tensor imaginary = imagPart(out);
    copyInto(imaginary, unary(UnaryOp::Neg, imaginary));
    return out;
}

Tensor angle(const Tensor& x) {
    if (!isComplex(x.dtype())) {
        // Real inputs: pi for negative values, 0 otherwise (nan stays nan); integers become the default float.
        const Tensor input = isFloating(x.dtype()) ? x : to(x, kDefaultFloat);
        return binary(BinaryOp::Atan2, zerosLike(input), input);
    }
    const Tensor pairs = pairsOf(x);
    return binary(BinaryOp::Atan2, select(pairs, -1, 1), select(pairs, -1, 0));
}

Tensor complexBinary(BinaryOp op, const Operand& a, const Operand& b, const Tensor* into) {
    const DType compute = resultType(a, b);
    const bool predicate = op == BinaryOp::Eq || op == BinaryOp::Ne;
    if (op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul && op != BinaryOp::Div && !predicate)
        noComplexForm(rowOf(op).kernel, compute);
    const DType outType = predicate ? DType::Bool : compute;
    if (into && isComplex(outType) && !isComplex(into->dtype()))
        fail(ErrorKind::Runtime, fmt::format("result type {} can't be cast to the desired output type {}", dtypeKernelName(outType),
                                             dtypeKernelName(into->dtype())));
    const Shape shape = broadcastShapes(a.isTensor() ? a.tensor().sizes() : Shape{}, b.isTensor() ? b.tensor().sizes() : Shape{});
    const Device device = loopDevice(a, b);
    if (!device.isCpu()) {
        const Tensor out = hostroute::backTo(device, complexBinary(op, onHost(a), onHost(b), nullptr));
        if (!into) return out;
        if (into->sizes() != shape)
            fail(ErrorKind::Runtime, fmt::format("output with shape {} doesn't match the broadcast shape {}", shapeStr(into->sizes()), shapeStr(shape)));
        copyInto(*into, out);
        return *into;
    }
    const Tensor left = denseComplex(a, compute, shape, device);
    const Tensor right = denseComplex(b, compute, shape, device);
    Tensor out = empty(shape, outType, device);
    dispatchComplex(compute, [&]<typename V>() {
        const auto* x = left.dataAs<const std::complex<V>>();
        const auto* y = right.dataAs<const std::complex<V>>();
        const int64_t n = out.numel();
        if (predicate) {
            bool* o = out.dataAs<bool>();
            for (int64_t i = 0; i < n; ++i) o[i] = (x[i] == y[i]) == (op == BinaryOp::Eq);
            return;
        }
        auto* o = out.dataAs<std::complex<V>>();
        for (int64_t i = 0; i < n; ++i) {
            switch (op) {
                case BinaryOp::Add: o[i] = x[i] + y[i]; break;
                case BinaryOp::Sub: o[i] = x[i] - y[i]; break;
                // (a+bi)(c+di) without the C99 Annex G recovery of infinities, as c10::complex multiplies.
                case BinaryOp::Mul:
                    o[i] = {x[i].real() * y[i].real() - x[i].imag() * y[i].imag(), x[i].real() * y[i].imag() + x[i].imag() * y[i].real()};
                    break;
                default: o[i] = divide(x[i], y[i]); break;
            }
        }
    });
    if (!into) return out;
    if (into->sizes() != shape)
        fail(ErrorKind::Runtime, fmt::format("output with shape {} doesn't match the broadcast shape {}", shapeStr(into->sizes()), shapeStr(shape)));
    copyInto(*into, out);
    return *into;
}

Tensor complexUnary(UnaryOp op, const Tensor& x) {
    if (!x.device().isCpu()) return hostroute::backTo(x.device(), complexUnary(op, hostroute::toHost(x)));
    switch (op) {
        case UnaryOp::Neg: return viewAsComplex(contiguous(unary(UnaryOp::Neg, pairsOf(x))));
        case UnaryOp::Abs: {
            const Tensor dense = contiguous(x);
            Tensor out = empty(x.sizes(), complexValueType(x.dtype()), x.device());
            dispatchComplex(x.dtype(), [&]<typename V>() {
                const auto* in = dense.dataAs<const std::complex<V>>();
                V* o = out.dataAs<V>();
                for (int64_t i = 0; i < out.numel(); ++i) o[i] = std::abs(in[i]);
            });
            return out;
        }
        case UnaryOp::Exp: {
            const Tensor dense = contiguous(x);
            Tensor out = empty(x.sizes(), x.dtype(), x.device());
            dispatchComplex(x.dtype(), [&]<typename V>() {
                const auto* in = dense.dataAs<const std::complex<V>>();
                auto* o = out.dataAs<std::complex<V>>();
                for (int64_t i = 0; i < out.numel(); ++i) o[i] = std::exp(in[i]);
            });
            return out;
        }
        case UnaryOp::IsNan:
        case UnaryOp::IsFinite:
        case UnaryOp::IsInf: {
            const Tensor pairs = pairsOf(x);
            const Tensor re = unary(op, select(pairs, -1, 0)), im = unary(op, select(pairs, -1, 1));
            return binary(op == UnaryOp::IsFinite ? BinaryOp::LogicalAnd : BinaryOp::LogicalOr, re, im);
        }
        default: noComplexForm(rowOf(op).kernel, x.dtype());
    }
}

Tensor complexSum(const Tensor& x, const DimList& dims, bool keepdim, std::optional<DType> dtype, bool mean) {
    if (dtype && !isComplex(*dtype))
        fail(ErrorKind::Runtime, fmt::format("{}(): Expected a complex output dtype for a complex input, got {}", mean ? "mean" : "sum",
                                             dtypeKernelName(*dtype)));
    const Tensor input = to(x, dtype.value_or(x.dtype()));
    // The same dims of the pairs view: its last dim (real, imaginary) is never reduced.
    std::vector<int64_t> reduced;
    if (!dims || dims->empty()) {
        for (int64_t d = 0; d < input.dim(); ++d) reduced.push_back(d);
    } else {
        for (int64_t d : *dims) reduced.push_back(wrapDim(d, input.dim()));
    }
    if (reduced.empty()) return clone(input);
    const Tensor pairs = pairsOf(input);
    const Tensor parts = mean ? tensor::mean(pairs, reduced, keepdim) : tensor::sum(pairs, reduced, keepdim);
    return viewAsComplex(contiguous(parts));
}

void complexFill(const Tensor& t, Scalar value) {
    const Tensor pairs = pairsOf(t);
    fillInPlace(select(pairs, -1, 0), value);
    fillInPlace(select(pairs, -1, 1), Scalar(0.0));
}

void complexCopy(const Tensor& dst, const Tensor& src) {
    const Tensor source = expandTo(src, dst.sizes());
    if (isComplex(dst.dtype()) && isComplex(source.dtype())) {
        copyInto(pairsOf(dst), pairsOf(source));
    } else if (isComplex(dst.dtype())) {
        const Tensor pairs = pairsOf(dst);
        copyInto(select(pairs, -1, 0), source);
        fillInPlace(select(pairs, -1, 1), Scalar(0.0));
    } else {
        copyInto(dst, select(pairsOf(source), -1, 0));
    }
}

}  // namespace eng::tensor
