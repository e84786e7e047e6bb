// Pointwise CUDA kernels: copy/cast, fill, unary, binary, clamp, where, masked_fill, leaky_relu and pow with a
// scalar exponent, all through one launcher over the generated pointwise template (any strides).
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <span>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/deferred_fill.h"

namespace eng::tensor::cudaops {

namespace {

bool isBroadcastScalar(const Tensor& t) {
    return std::all_of(t.strides().begin(), t.strides().end(), [](int64_t s) { return s == 0; });
}

// Inputs must live on the output's device; a CPU tensor broadcast from one element (a 0-dim tensor or a
// Python number) is moved over, as PyTorch allows for CPU scalars. Its value is read on the host and written by a
// fill kernel, which the stream orders like any launch: a copy from pageable host memory waits for the device
// (copyHostToDevice synchronises), and `x + 1` would stall the stream (the embedding backward's index arithmetic
// did so 8 times a training step). CWB_HOST_CHECKS=1 copies as before (cuda_kernels.h).
Tensor onDeviceOf(const Tensor& t, Device device) {
    if (t.device() == device) return t;
    if (t.device().isCpu() && isBroadcastScalar(t)) {
        Tensor element = empty({}, t.dtype(), device);
        if (isComplex(t.dtype()) || synchronisingHostChecks()) backendFor(device).copyFromHost(element.data(), t.data(), t.itemBytes(), device.index());
        else fill(element, item(t.asStrided({}, {}, t.storageOffset())));  // (t may be that element expanded)
        return element.asStrided(t.sizes(), Shape(t.sizes().size(), 0), element.storageOffset());
    }
    deviceMismatch(device, t.device());
}

cuda::DeviceContext& contextFor(const Tensor& t) { return cuda::DeviceContext::get(normalizeDevice(t.device()).index()); }

cuda::LaunchShape gridFor(cuda::DeviceContext& context, int64_t n) {
    constexpr int64_t kThreads = 256;
    const int64_t wanted = (n + kThreads - 1) / kThreads;
    const int64_t cap = static_cast<int64_t>(context.multiprocessorCount()) * 32;
    cuda::LaunchShape shape;
    shape.gridX = static_cast<unsigned>(std::max<int64_t>(1, std::min(wanted, cap)));
    shape.blockX = kThreads;
    return shape;
}

struct ScalarArgs {
    double s0 = 0, s1 = 0;
    long long i0 = 0;
};

// Launches the pointwise kernel that makeSpec() describes over out and inputs. The kernel is memoized under
// family, variant and the operands' dtypes: makeSpec (run on the first launch of that key only) must give a spec of
// out's and the inputs' dtypes whose expression and types follow from family, variant and those dtypes alone.
template <class MakeSpec>
void launchPointwiseNow(std::string_view family, int64_t variant, const MakeSpec& makeSpec, const Tensor& out,
                        std::span<const Tensor> inputs, ScalarArgs scalars) {
    const int64_t n = out.numel();
    cudagen::PointwiseGeometry g;
    for (size_t d = 0; d < out.sizes().size(); ++d) {
        if (out.sizes()[d] == 1) continue;  // size-1 dims add nothing to any offset
        if (g.ndim == cudagen::kMaxDims)
            fail(ErrorKind::NotImplemented, fmt::format("CUDA pointwise kernels support at most {} non-trivial dims", cudagen::kMaxDims));
        const auto k = static_cast<size_t>(g.ndim);
        g.sizes[k] = out.sizes()[d];
        g.strides[0][k] = out.strides()[d];
        for (size_t i = 0; i < inputs.size(); ++i) g.strides[i + 1][k] = inputs[i].strides()[d];
        ++g.ndim;
    }
    cuda::DeviceContext& context = contextFor(out);
    KernelKey key(context, family);
    key.add(variant).add(out.dtype());
    for (const Tensor& t : inputs) key.add(t.dtype());
    long long count = n;
    std::vector<void*> pointers{out.data()};
    for (const Tensor& t : inputs) pointers.push_back(t.data());
    std::vector<void*> args{&g, &count, &scalars.s0, &scalars.s1, &scalars.i0};
    for (void*& p : pointers) args.push_back(&p);
    auto source = [&] {
        const cudagen::PointwiseSpec spec = makeSpec();
        bool keyed = spec.outType == out.dtype() && spec.inputTypes.size() == inputs.size();
        for (size_t i = 0; keyed && i < inputs.size(); ++i) keyed = spec.inputTypes[i] == inputs[i].dtype();
        if (!keyed) fail(ErrorKind::Runtime, fmt::format("CUDA pointwise kernel {}: its spec's dtypes differ from its operands'", spec.name));
        return cudagen::translationUnit(cudagen::pointwiseKernel(spec));
    };
    launchMemoized(context, key, source, gridFor(context, n), args.data());
}

// launchPointwiseNow, or inside a capture's DeferredFillScope its launch (and the kernel's compile, on a key's first
// launch) deferred until out's elements are first touched (tensor/deferred_fill.h); the spec is taken now, so that the
// deferred launch holds no reference to the caller's operands.
template <class MakeSpec>
void launchPointwise(std::string_view family, int64_t variant, const MakeSpec& makeSpec, const Tensor& out,
                     const std::vector<Tensor>& rawInputs, ScalarArgs scalars = {}) {
    if (out.numel() == 0) return;
    std::vector<Tensor> inputs;
    for (const Tensor& t : rawInputs) inputs.push_back(onDeviceOf(t, out.device()));
    launchOrDefer(
        out, inputs, [&](const Tensor& o, std::span<const Tensor> in) { launchPointwiseNow(family, variant, makeSpec, o, in, scalars); },
        [&] {
            return FillFunction([family, variant, spec = makeSpec(), scalars](const Tensor& o, std::span<const Tensor> in) {
                launchPointwiseNow(family, variant, [&] { return spec; }, o, in, scalars);
            });
        });
}

// The fill value in the kernel's scalar slots: exact for int64 (i0) and for floats (s0).
ScalarArgs fillArgs(DType dtype, Scalar value) {
    ScalarArgs args;
    dispatchDType(dtype, [&]<typename T>() {
        const T v = value.to<T>();
        if constexpr (std::is_integral_v<T>) args.i0 = static_cast<long long>(v);
        else args.s0 = static_cast<double>(static_cast<OpMath<T>>(v));
    });
    return args;
}

std::string fillExpression(DType dtype) { return isFloating(dtype) ? "(T)s0" : "(T)i0"; }

std::string opName(const char* family, int op) { return fmt::format("{}{}", family, op); }

// The variant of families whose kernel is decided by their dtypes alone.
constexpr int64_t kOnlyForm = 0;

}  // namespace

bool synchronisingHostChecks() {
    static const bool on = [] {
        const char* value = std::getenv("CWB_HOST_CHECKS");
        return value != nullptr && *value != '\0' && std::string_view(value) != "0";
    }();
    return on;
}

void deviceMismatch(Device a, Device b) {
    fail(ErrorKind::Runtime, fmt::format("Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
                                         normalizeDevice(a).str(), normalizeDevice(b).str()));
}

Device commonDevice(std::initializer_list<Tensor> operands) {
    Device found = kCpu;
    for (const Tensor& t : operands)
        if (onCuda(t)) {
            if (found.isCpu()) found = normalizeDevice(t.device());
            else if (normalizeDevice(t.device()) != found) deviceMismatch(found, t.device());
        }
    if (found.isCpu()) return found;
    for (const Tensor& t : operands)
        if (t.defined() && t.device().isCpu() && t.dim() != 0) deviceMismatch(found, t.device());
    return found;
}

void copy(const Tensor& dst, const Tensor& src) {
    const Tensor source = onDeviceOf(src, dst.device());
    if (dst.dtype() == source.dtype() && dst.isContiguous() && source.isContiguous() && dst.sizes() == source.sizes()) {
        if (dst.numel() == 0 || (dst.storage() == source.storage() && dst.storageOffset() == source.storageOffset())) return;
        auto copyBytes = [](const Tensor& o, std::span<const Tensor> in) { contextFor(o).copyDeviceToDevice(o.data(), in[0].data(), o.nbytes()); };
        launchOrDefer(dst, {&source, 1}, copyBytes);
        return;
    }
    launchPointwise(
        "copy", kOnlyForm, [&] { return cudagen::PointwiseSpec{"copy", dst.dtype(), {source.dtype()}, source.dtype(), "a", source.dtype()}; },
        dst, {source});
}

void fill(const Tensor& dst, Scalar value) {
    launchPointwise(
        "fill", kOnlyForm,
        [&] { return cudagen::PointwiseSpec{"fill", dst.dtype(), {}, dst.dtype(), fillExpression(dst.dtype()), dst.dtype()}; }, dst, {},
        fillArgs(dst.dtype(), value));
}

void unary(UnaryOp op, const Tensor& out, const Tensor& x) {
    auto spec = [&] {
        const cudagen::OpExpression e = cudagen::unaryExpression(op, x.dtype());
        return cudagen::PointwiseSpec{opName("unary", static_cast<int>(op)), out.dtype(), {x.dtype()}, x.dtype(), e.text, e.type};
    };
    launchPointwise("unary", static_cast<int64_t>(op), spec, out, {x});
}

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
    auto spec = [&] {
        const cudagen::OpExpression e = cudagen::binaryExpression(op, a.dtype());
        return cudagen::PointwiseSpec{opName("binary", static_cast<int>(op)), out.dtype(), {a.dtype(), b.dtype()}, a.dtype(), e.text, e.type};
    };
    launchPointwise("binary", static_cast<int64_t>(op), spec, out, {a, b});
}

void leakyRelu(const Tensor& out, const Tensor& x, double negativeSlope) {
    ScalarArgs args;
    args.s0 = negativeSlope;
    auto spec = [&] { return cudagen::PointwiseSpec{"leaky_relu", out.dtype(), {x.dtype()}, x.dtype(), "(a > T(0) ? a : a * (T)s0)", x.dtype()}; };
    launchPointwise("leaky_relu", kOnlyForm, spec, out, {x}, args);
}

void powScalar(const Tensor& out, const Tensor& x, double exponent) {
    // The same exact shortcuts the CPU kernel takes, so that both round identically; form 0 is pow itself.
    constexpr std::pair<double, const char*> kShortcuts[] = {{2.0, "(a * a)"},          {3.0, "(a * a * a)"},
                                                             {0.5, "sqrt(a)"},          {-0.5, "(T(1) / sqrt(a))"},
                                                             {-1.0, "(T(1) / a)"},      {-2.0, "(T(1) / (a * a))"}};
    int64_t form = 0;
    for (size_t i = 0; i < std::size(kShortcuts); ++i)
        if (exponent == kShortcuts[i].first) form = static_cast<int64_t>(i) + 1;
    ScalarArgs args;
    args.s0 = exponent;
    auto spec = [&] {
        const std::string expression = form == 0 ? "pow(a, (T)s0)" : kShortcuts[form - 1].second;
        return cudagen::PointwiseSpec{"pow_scalar", out.dtype(), {x.dtype()}, x.dtype(), expression, x.dtype()};
    };
    launchPointwise("pow_scalar", form, spec, out, {x}, args);
}

void clamp(const Tensor& out, const Tensor& x, const Tensor& low, const Tensor& high) {
    std::vector<Tensor> inputs{x};
    for (const Tensor* bound : {&low, &high})
        if (bound->defined()) inputs.push_back(*bound);
    auto spec = [&] {
        std::vector<DType> types{x.dtype()};
        std::string value = "a";
        const char* names[] = {"bb", "cc"};
        std::string name = "clamp";
        for (const auto& [bound, helper] : {std::pair{&low, "cwb_clamp_lo"}, std::pair{&high, "cwb_clamp_hi"}}) {
            if (!bound->defined()) continue;
            value = fmt::format("{}({}, {})", helper, value, names[types.size() - 1]);
            name += bound == &low ? "_lo" : "_hi";
            types.push_back(bound->dtype());
        }
        return cudagen::PointwiseSpec{name, out.dtype(), types, x.dtype(), "(a != a ? a : " + value + ")", x.dtype()};
    };
    // The form: which bounds there are (1 low, 2 high).
    launchPointwise("clamp", (low.defined() ? 1 : 0) | (high.defined() ? 2 : 0), spec, out, inputs);
}

void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
    auto spec = [&] {
        return cudagen::PointwiseSpec{"where", out.dtype(), {condition.dtype(), a.dtype(), b.dtype()}, out.dtype(), "(a != T(0) ? bb : cc)",
                                      out.dtype()};
    };
    launchPointwise("where", kOnlyForm, spec, out, {condition, a, b});
}

void maskedFill(const Tensor& self, const Tensor& mask, Scalar value) {
    auto spec = [&] {
        const std::string expression = "(bb != T(0) ? " + fillExpression(self.dtype()) + " : a)";
        return cudagen::PointwiseSpec{"masked_fill", self.dtype(), {self.dtype(), mask.dtype()}, self.dtype(), expression, self.dtype()};
    };
    launchPointwise("masked_fill", kOnlyForm, spec, self, {self, mask}, fillArgs(self.dtype(), value));
}

}  // namespace eng::tensor::cudaops
