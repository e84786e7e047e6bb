// Pointwise CUDA kernels: copy/cast, fill, unary, binary, clamp, where, masked_fill, leaky_relu and pow with a
// scalar exponent, all through one launcher over the generated pointwise template (any strides).
#include <algorithm>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"

namespace eng::tensor::cudaops {

namespace {

bool isBroadcastScalar(const Tensor& t) {
    return std::all_of(t.strides().begin(), t.strides().end(), [](int64_t s) { return s == 0; });
}

// Inputs must live on the output's device; a CPU tensor broadcast from one element (a 0-dim tensor or a
// Python number) is moved over, as PyTorch allows for CPU scalars.
Tensor onDeviceOf(const Tensor& t, Device device) {
    if (t.device() == device) return t;
    if (t.device().isCpu() && isBroadcastScalar(t)) {
        Tensor element = empty({}, t.dtype(), device);
        backendFor(device).copyFromHost(element.data(), t.data(), t.itemBytes(), device.index());
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

void launchPointwise(const cudagen::PointwiseSpec& spec, const Tensor& out, const std::vector<Tensor>& rawInputs,
                     ScalarArgs scalars = {}) {
    const int64_t n = out.numel();
    if (n == 0) return;
    std::vector<Tensor> inputs;
    for (const Tensor& t : rawInputs) inputs.push_back(onDeviceOf(t, out.device()));
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
    long long count = n;
    std::vector<void*> pointers{out.data()};
    for (const Tensor& t : inputs) pointers.push_back(t.data());
    std::vector<void*> args{&g, &count, &scalars.s0, &scalars.s1, &scalars.i0};
    for (void*& p : pointers) args.push_back(&p);
    context.launch(cudagen::translationUnit(cudagen::pointwiseKernel(spec)), gridFor(context, n), args.data());
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

}  // namespace

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
        if (dst.numel() > 0 && dst.data() != source.data()) contextFor(dst).copyDeviceToDevice(dst.data(), source.data(), dst.nbytes());
        return;
    }
    launchPointwise({"copy", dst.dtype(), {source.dtype()}, source.dtype(), "a", source.dtype()}, dst, {source});
}

void fill(const Tensor& dst, Scalar value) {
    launchPointwise({"fill", dst.dtype(), {}, dst.dtype(), fillExpression(dst.dtype()), dst.dtype()}, dst, {},
                    fillArgs(dst.dtype(), value));
}

void unary(UnaryOp op, const Tensor& out, const Tensor& x) {
    const cudagen::OpExpression e = cudagen::unaryExpression(op, x.dtype());
    launchPointwise({opName("unary", static_cast<int>(op)), out.dtype(), {x.dtype()}, x.dtype(), e.text, e.type}, out, {x});
}

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
    const cudagen::OpExpression e = cudagen::binaryExpression(op, a.dtype());
    launchPointwise({opName("binary", static_cast<int>(op)), out.dtype(), {a.dtype(), b.dtype()}, a.dtype(), e.text, e.type}, out,
                    {a, b});
}

void leakyRelu(const Tensor& out, const Tensor& x, double negativeSlope) {
    ScalarArgs args;
    args.s0 = negativeSlope;
    launchPointwise({"leaky_relu", out.dtype(), {x.dtype()}, x.dtype(), "(a > T(0) ? a : a * (T)s0)", x.dtype()}, out, {x}, args);
}

void powScalar(const Tensor& out, const Tensor& x, double exponent) {
    // The same exact shortcuts the CPU kernel takes, so that both round identically.
    std::string expression = "pow(a, (T)s0)";
    if (exponent == 2.0) expression = "(a * a)";
    else if (exponent == 3.0) expression = "(a * a * a)";
    else if (exponent == 0.5) expression = "sqrt(a)";
    else if (exponent == -0.5) expression = "(T(1) / sqrt(a))";
    else if (exponent == -1.0) expression = "(T(1) / a)";
    else if (exponent == -2.0) expression = "(T(1) / (a * a))";
    ScalarArgs args;
    args.s0 = exponent;
    launchPointwise({"pow_scalar", out.dtype(), {x.dtype()}, x.dtype(), expression, x.dtype()}, out, {x}, args);
}

void clamp(const Tensor& out, const Tensor& x, const Tensor& low, const Tensor& high) {
    std::vector<Tensor> inputs{x};
    std::vector<DType> types{x.dtype()};
    std::string value = "a";
    const char* names[] = {"bb", "cc"};
    std::string name = "clamp";
    for (const auto& [bound, helper] : {std::pair{&low, "cwb_clamp_lo"}, std::pair{&high, "cwb_clamp_hi"}}) {
        if (!bound->defined()) continue;
        value = fmt::format("{}({}, {})", helper, value, names[inputs.size() - 1]);
        name += bound == &low ? "_lo" : "_hi";
        inputs.push_back(*bound);
        types.push_back(bound->dtype());
    }
    launchPointwise({name, out.dtype(), types, x.dtype(), "(a != a ? a : " + value + ")", x.dtype()}, out, inputs);
}

void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
    launchPointwise({"where", out.dtype(), {condition.dtype(), a.dtype(), b.dtype()}, out.dtype(), "(a != T(0) ? bb : cc)", out.dtype()},
                    out, {condition, a, b});
}

void maskedFill(const Tensor& self, const Tensor& mask, Scalar value) {
    const std::string expression = "(bb != T(0) ? " + fillExpression(self.dtype()) + " : a)";
    launchPointwise({"masked_fill", self.dtype(), {self.dtype(), mask.dtype()}, self.dtype(), expression, self.dtype()}, self,
                    {self, mask}, fillArgs(self.dtype(), value));
}

}  // namespace eng::tensor::cudaops
