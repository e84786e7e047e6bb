// Ops written as registry calls (PyTorch's CompositeImplicitAutograd): their kernels call other ops through the
// registry with grad mode as the caller left it, so autograd records the ops they are made of and no derivative
// formula is written twice. torch.diag, topk, sort, the torch._foreach_* family (one op per list element), F.pad
// (constant), F.conv1d/conv2d (sliding windows and a matrix product), F.avg_pool2d, F.max_pool2d (windows padded
// with -inf, torch.max so the gradient goes to the first max), F.adaptive_avg_pool2d, F.normalize and F.batch_norm.
#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "tensor/autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/registry_composite.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

namespace {

using composite::CompositeRegistry;
using composite::ints;
using composite::op;
using composite::top;

std::set<std::string, std::less<>>& compositeNames() {
    static std::set<std::string, std::less<>> names;
    return names;
}

// ---- diag and topk ----

Tensor diag(const Tensor& x, int64_t k) {
    if (x.dim() == 2) return top("Tensor.clone", {top("torch.diagonal", {x, k})});
    if (x.dim() != 1) fail(ErrorKind::Runtime, "diag(): Supports 1D or 2D tensors. Got " + std::to_string(x.dim()) + "D");
    const int64_t n = x.size(0) + std::abs(k);
    const Tensor out = zeros({n, n}, TensorOptions{x.dtype(), x.device(), false});
    op("Tensor.copy_", {top("torch.diagonal", {out, k}), x});
    return out;
}

Value topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted, const char* typeName = "torch.return_types.topk") {
    const int64_t rank = std::max<int64_t>(x.dim(), 1);
    const int64_t d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= rank)
        fail(ErrorKind::Index, fmt::format("Dimension out of range (expected to be in range of [{}, {}], but got {})", -rank, rank - 1, dim));
    const int64_t n = x.dim() == 0 ? 1 : x.size(d);
    if (k < 0 || k > n) fail(ErrorKind::Runtime, "selected index k out of range");
    // The order is found on a detached host copy; the values are gathered from x, so they carry its history.
    Tensor moved = x.dim() == 0 ? top("Tensor.reshape", {x, ints({1})}) : top("torch.movedim", {x, d, -1});
    std::vector<double> values;
    {
        const autograd::GradModeGuard noGrad(false);
        values = toDoubles(top("Tensor.double", {top("Tensor.contiguous", {top("Tensor.cpu", {moved})})}));
    }
    const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(values.size()) / n;
    std::vector<int64_t> picked;
    picked.reserve(static_cast<size_t>(rows * k));
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t r = 0; r < rows; ++r) {
        std::iota(order.begin(), order.end(), 0);
        const double* row = values.data() + r * n;
        // NaN counts as the largest value, as in PyTorch; ties keep the lower index first.
        auto before = [&](int64_t a, int64_t b) {
            const double va = row[a], vb = row[b];
            if (std::isnan(va) || std::isnan(vb)) return largest ? std::isnan(va) && !std::isnan(vb) : !std::isnan(va) && std::isnan(vb);
            return largest ? va > vb : va < vb;
        };
        std::stable_sort(order.begin(), order.end(), before);
        picked.insert(picked.end(), order.begin(), order.begin() + k);
    }
    (void)sorted;  // always sorted: PyTorch leaves the order unspecified when sorted=False
    Shape shape = moved.sizes();
    shape.back() = k;
    Tensor indices = fromInts(picked, shape);
    indices = top("Tensor.to", {indices, Value(x.device())});
    Tensor gathered = top("torch.gather", {moved, -1, indices});
    if (x.dim() == 0) {
        gathered = top("Tensor.reshape", {gathered, ints({})});
        indices = top("Tensor.reshape", {indices, ints({})});
    } else {
        gathered = top("torch.movedim", {gathered, -1, d});
        indices = top("torch.movedim", {indices, -1, d});
    }
    return Value::namedTuple(typeName, {"values", "indices"}, {gathered, indices});
}

// ---- torch._foreach_* ----

const std::vector<Tensor>& sameLength(const std::vector<Tensor>& a, size_t n, const char* name) {
    if (a.size() != n)
        fail(ErrorKind::Runtime, fmt::format("Tensor lists must have the same number of tensors, got {} and {}", n, a.size()));
    (void)name;
    return a;
}

/// Runs `method` (a Tensor method name, in place when it ends in `_`) on every element with the element's
/// operand; in-place forms return None, the others a tuple of the results (a TensorList return, as PyTorch gives it).
Value foreachEach(const std::vector<Tensor>& self, const std::string& method, const std::function<ValueList(size_t)>& operands,
                  const KeywordArgs& kwargs = {}) {
    const bool inPlace = method.ends_with("_");
    ValueList out;
    for (size_t i = 0; i < self.size(); ++i) {
        std::vector<Value> args{Value(self[i])};
        for (Value& v : operands(i)) args.push_back(std::move(v));
        Value r = OpRegistry::instance().call("Tensor." + method, args, kwargs);
        if (!inPlace) out.push_back(std::move(r));
    }
    return inPlace ? Value() : Value::tuple(std::move(out));
}

void defineForeachBinary(CompositeRegistry& r, const std::string& name, bool withAlpha) {
    for (const std::string& suffix : {std::string(), std::string("_")}) {
        const std::string method = name + suffix;
        const std::vector<std::string> names = {"torch._foreach_" + method};
        const std::string alpha = withAlpha ? ", *, Scalar alpha=1" : "";
        auto alphaArg = [withAlpha](const Args& a, size_t i) { return withAlpha ? KeywordArgs{{"alpha", Value(a.scalar(i))}} : KeywordArgs{}; };
        r.def(names, fmt::format("_foreach_{}(Tensor[] self, Tensor[] other{})", method, alpha), [method, alphaArg](const Args& a) {
            const auto self = a.tensorList(0);
            const auto other = sameLength(a.tensorList(1), self.size(), "other");
            return foreachEach(self, method, [&](size_t i) { return ValueList{other[i]}; }, alphaArg(a, 2));
        });
        r.def(names, fmt::format("_foreach_{}(Tensor[] self, Scalar scalar)", method), [method](const Args& a) {
            return foreachEach(a.tensorList(0), method, [&](size_t) { return ValueList{a.scalar(1)}; });
        });
        r.def(names, fmt::format("_foreach_{}(Tensor[] self, float[] scalars)", method), [method](const Args& a) {
            const auto self = a.tensorList(0);
            const std::vector<Value>& scalars = a[1].items();
            if (scalars.size() != self.size())
                fail(ErrorKind::Runtime, fmt::format("Tensor list must have same number of elements as scalar list, got {} and {}",
                                                     self.size(), scalars.size()));
            return foreachEach(self, method, [&](size_t i) { return ValueList{scalars[i]}; });
        });
        r.def(names, fmt::format("_foreach_{}(Tensor[] self, Tensor other{})", method, alpha), [method, alphaArg](const Args& a) {
            return foreachEach(a.tensorList(0), method, [&](size_t) { return ValueList{a.tensor(1)}; }, alphaArg(a, 2));
        });
    }
}

void registerForeachOps(CompositeRegistry& r) {
    for (const char* name : {"add", "sub"}) defineForeachBinary(r, name, true);
    for (const char* name : {"mul", "div", "pow", "maximum", "minimum", "clamp_min", "clamp_max"}) defineForeachBinary(r, name, false);
    // pow with a scalar base: torch._foreach_pow(2.0, [a, b]) is [2.0 ** a, 2.0 ** b].
    r.def({"torch._foreach_pow"}, "_foreach_pow(Scalar self, Tensor[] exponent)", [](const Args& a) {
        ValueList out;
        for (const Tensor& t : a.tensorList(1)) out.push_back(op("torch.pow", {a.scalar(0), t}));
        return Value::tuple(std::move(out));
    });
    for (const char* name : {"abs", "neg", "sqrt", "rsqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid",
                             "reciprocal", "sign", "floor", "ceil", "round", "trunc", "frac", "erf", "zero"}) {
        for (const std::string& suffix : {std::string(), std::string("_")}) {
            const std::string method = std::string(name) + suffix;
            if (method == "zero") continue;  // only the in-place zero_ exists
            r.def({"torch._foreach_" + method}, fmt::format("_foreach_{}(Tensor[] self)", method),
                  [method](const Args& a) { return foreachEach(a.tensorList(0), method, [](size_t) { return ValueList{}; }); });
        }
    }
    for (const char* name : {"addcmul", "addcdiv"}) {
        for (const std::string& suffix : {std::string(), std::string("_")}) {
            const std::string method = std::string(name) + suffix;
            r.def({"torch._foreach_" + method}, fmt::format("_foreach_{}(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1)", method),
                  [method](const Args& a) {
                      const auto self = a.tensorList(0);
                      const auto t1 = sameLength(a.tensorList(1), self.size(), "tensor1");
                      const auto t2 = sameLength(a.tensorList(2), self.size(), "tensor2");
                      return foreachEach(self, method, [&](size_t i) { return ValueList{t1[i], t2[i]}; }, {{"value", Value(a.scalar(3))}});
                  });
        }
    }
    for (const std::string& method : {std::string("lerp"), std::string("lerp_")}) {
        r.def({"torch._foreach_" + method}, fmt::format("_foreach_{}(Tensor[] self, Tensor[] tensors1, Scalar weight)", method), [method](const Args& a) {
            const auto self = a.tensorList(0);
            const auto end = sameLength(a.tensorList(1), self.size(), "tensors1");
            return foreachEach(self, method, [&](size_t i) { return ValueList{end[i], a.scalar(2)}; });
        });
    }
    for (const std::string& method : {std::string("copy_")})
        r.def({"torch._foreach_" + method}, fmt::format("_foreach_{}(Tensor[] self, Tensor[] src, bool non_blocking=False)", method),
              [method](const Args& a) {
                  const auto self = a.tensorList(0);
                  const auto src = sameLength(a.tensorList(1), self.size(), "src");
                  return foreachEach(self, method, [&](size_t i) { return ValueList{src[i]}; });
              });
    r.def({"torch._foreach_norm"}, "_foreach_norm(Tensor[] self, Scalar ord=2, ScalarType? dtype=None)", [](const Args& a) {
        ValueList out;
        for (const Tensor& t : a.tensorList(0))
            out.push_back(op("torch.linalg.vector_norm", {t, a.scalar(1)}, {{"dtype", a.isNone(2) ? Value() : Value(*a.optDType(2))}}));
        return Value::tuple(std::move(out));
    });
}

// ---- F.pad, convolutions, pooling, batch norm ----

/// F.pad in constant mode: `pad` lists (left, right) pairs from the last dim backwards; negative amounts crop.
Tensor constantPad(const Tensor& x, const std::vector<int64_t>& pad, const Scalar& value) {
    if (pad.size() % 2 != 0) fail(ErrorKind::Runtime, "Padding length must be divisible by 2");
    if (static_cast<int64_t>(pad.size() / 2) > x.dim())
        fail(ErrorKind::Runtime, "Padding length should be less than or equal to two times the input dimension but got padding length " +
                                     std::to_string(pad.size()) + " and input of dimension " + std::to_string(x.dim()));
    Tensor out = x;
    for (size_t p = 0; p < pad.size() / 2; ++p) {
        const int64_t dim = x.dim() - 1 - static_cast<int64_t>(p);
        const int64_t left = pad[2 * p], right = pad[2 * p + 1];
        if (left < 0 || right < 0) {
            const int64_t start = std::max<int64_t>(-left, 0);
            const int64_t length = out.size(dim) - start - std::max<int64_t>(-right, 0);
            out = top("torch.narrow", {out, dim, start, length});
        }
        std::vector<Value> parts;
        auto block = [&](int64_t amount) {
            Shape shape = out.sizes();
            shape[static_cast<size_t>(dim)] = amount;
            return Value(full(shape, value, TensorOptions{out.dtype(), out.device(), false}));
        };
        if (left > 0) parts.push_back(block(left));
        parts.emplace_back(out);
        if (right > 0) parts.push_back(block(right));
        if (parts.size() > 1) out = top("torch.cat", {Value::list(parts), dim});
    }
    return out;
}

std::vector<int64_t> spatial(const Args& a, size_t i, size_t dims, const char* what) {
    std::vector<int64_t> v = a[i].isSequence() ? a.intList(i) : std::vector<int64_t>{a.integer(i)};
    if (v.size() == 1) v.assign(dims, v[0]);
    if (v.size() != dims) fail(ErrorKind::Runtime, fmt::format("expected {} to be a single integer value or a list of {} values", what, dims));
    return v;
}

/// Sliding windows of the last `dims` dims of x (N, C, *spatial): (N, C, *out, *kernel), dilation taken as a
/// strided slice of each window.
Tensor windows(Tensor x, const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation) {
    const int64_t dims = static_cast<int64_t>(kernel.size());
    for (int64_t d = 0; d < dims; ++d) {
        const int64_t span = dilation[static_cast<size_t>(d)] * (kernel[static_cast<size_t>(d)] - 1) + 1;
        x = top("Tensor.unfold", {x, 2 + d, span, stride[static_cast<size_t>(d)]});
        if (dilation[static_cast<size_t>(d)] > 1) {
            std::vector<Value> index(static_cast<size_t>(x.dim()), Value(Slice{}));
            index.back() = Value(Slice{std::nullopt, std::nullopt, dilation[static_cast<size_t>(d)]});
            x = top("Tensor.__getitem__", {x, Value::tuple(index)});
        }
    }
    return x;  // (N, C, *out, *kernel)
}

Tensor convolution(const Args& a, size_t dims) {
    Tensor input = a.tensor(0);
    const Tensor weight = a.tensor(1);
    const Tensor bias = a.optTensor(2);
    const auto stride = spatial(a, 3, dims, "stride");
    const auto dilation = spatial(a, 5, dims, "dilation");
    const int64_t groups = a.integer(6);
    const bool batched = input.dim() == static_cast<int64_t>(dims) + 2;
    if (!batched && input.dim() != static_cast<int64_t>(dims) + 1)
        fail(ErrorKind::Runtime, fmt::format("Expected {}D (unbatched) or {}D (batched) input to conv{}d, but got input of size: {}", dims + 1,
                                             dims + 2, dims, Value::size(input.sizes()).repr()));
    if (!batched) input = top("Tensor.unsqueeze", {input, 0});
    const int64_t channels = input.size(1);
    if (weight.size(1) * groups != channels)
        fail(ErrorKind::Runtime, fmt::format("Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels "
                                             "instead",
                                             groups, Value::size(weight.sizes()).repr(), Value::size(input.sizes()).repr(),
                                             weight.size(1) * groups, channels));
    std::vector<int64_t> padding;
    if (a[4].isString()) {
        if (a.str(4) == "valid") padding.assign(dims, 0);
        else if (a.str(4) == "same") {
            for (size_t d = 0; d < dims; ++d) {
                if (stride[d] != 1) fail(ErrorKind::Runtime, "padding='same' is not supported for strided convolutions");
                const int64_t total = dilation[d] * (weight.size(static_cast<int64_t>(2 + d)) - 1);
                if (total % 2 != 0) fail(ErrorKind::NotImplemented, "padding='same' with an odd total padding is not supported by cwb");
                padding.push_back(total / 2);
            }
        } else {
            fail(ErrorKind::Runtime, fmt::format("Invalid padding string: '{}'", a.str(4)));
        }
    } else {
        padding = spatial(a, 4, dims, "padding");
    }
    std::vector<int64_t> pad;
    for (size_t d = dims; d-- > 0;) pad.insert(pad.end(), {padding[d], padding[d]});
    if (std::any_of(padding.begin(), padding.end(), [](int64_t p) { return p != 0; })) input = constantPad(input, pad, Scalar(0.0));
    std::vector<int64_t> kernel;
    for (size_t d = 0; d < dims; ++d) kernel.push_back(weight.size(static_cast<int64_t>(2 + d)));
    const Tensor cols = windows(input, kernel, stride, dilation);  // (N, C, *out, *kernel)
    const int64_t n = cols.size(0);
    Shape outSpatial(cols.sizes().begin() + 2, cols.sizes().begin() + 2 + static_cast<std::ptrdiff_t>(dims));
    const int64_t outCount = std::accumulate(outSpatial.begin(), outSpatial.end(), int64_t{1}, std::multiplies<>());
    const int64_t kernelCount = std::accumulate(kernel.begin(), kernel.end(), int64_t{1}, std::multiplies<>());
    const int64_t inPerGroup = channels / groups, outPerGroup = weight.size(0) / groups;
    // (N, G, C/G, L, K) -> (N, G, L, C/G*K) @ (G, C/G*K, O/G) -> (N, G, L, O/G)
    Tensor patches = top("Tensor.reshape", {cols, ints({n, groups, inPerGroup, outCount, kernelCount})});
    patches = top("Tensor.reshape", {top("Tensor.permute", {patches, ints({0, 1, 3, 2, 4})}), ints({n, groups, outCount, inPerGroup * kernelCount})});
    const Tensor w = top("Tensor.transpose", {top("Tensor.reshape", {weight, ints({groups, outPerGroup, inPerGroup * kernelCount})}), 1, 2});
    Tensor out = top("torch.matmul", {patches, w});                                   // (N, G, L, O/G)
    out = top("Tensor.reshape", {top("Tensor.permute", {out, ints({0, 1, 3, 2})}), ints({n, weight.size(0), outCount})});
    Shape finalShape{n, weight.size(0)};
    finalShape.insert(finalShape.end(), outSpatial.begin(), outSpatial.end());
    out = top("Tensor.reshape", {out, ints(finalShape)});
    if (bias.defined()) {
        Shape biasShape(finalShape.size(), 1);
        biasShape[1] = bias.size(0);
        out = top("torch.add", {out, top("Tensor.reshape", {bias, ints(biasShape)})});
    }
    return batched ? out : top("Tensor.squeeze", {out, 0});
}

Tensor avgPool(const Args& a, size_t dims) {
    Tensor input = a.tensor(0);
    const auto kernel = spatial(a, 1, dims, "kernel_size");
    const auto stride = a.isNone(2) || a.intList(2).empty() ? kernel : spatial(a, 2, dims, "stride");
    const auto padding = spatial(a, 3, dims, "padding");
    const bool ceilMode = a.boolean(4), includePad = a.boolean(5);
    const std::optional<int64_t> divisor = a.optInteger(6);
    const int64_t rank = input.dim();
    for (size_t d = 0; d < dims; ++d)
        if (padding[d] * 2 > kernel[d]) fail(ErrorKind::Runtime, "pad should be at most half of effective kernel size, but got pad=" +
                                                                     std::to_string(padding[d]) + ", kernel_size=" + std::to_string(kernel[d]) +
                                                                     " and dilation=1");
    // Right padding that ceil_mode adds so the last window may start inside input + left padding.
    std::vector<int64_t> extra(dims, 0);
    for (size_t d = 0; d < dims; ++d) {
        const int64_t size = input.size(rank - static_cast<int64_t>(dims) + static_cast<int64_t>(d)) + 2 * padding[d];
        int64_t out = (size - kernel[d] + (ceilMode ? stride[d] - 1 : 0)) / stride[d] + 1;
        if (ceilMode && (out - 1) * stride[d] >= size - padding[d]) --out;
        extra[d] = std::max<int64_t>((out - 1) * stride[d] + kernel[d] - size, 0);
    }
    std::vector<int64_t> pad, padMask, padExtra;
    for (size_t d = dims; d-- > 0;) {
        pad.insert(pad.end(), {padding[d], padding[d] + extra[d]});
        padExtra.insert(padExtra.end(), {0, extra[d]});
    }
    // Batch the leading dims so the windows cover the last `dims` dims.
    const Shape leading(input.sizes().begin(), input.sizes().end() - static_cast<std::ptrdiff_t>(dims));
    Shape flat{1, -1};
    flat.insert(flat.end(), input.sizes().end() - static_cast<std::ptrdiff_t>(dims), input.sizes().end());
    Tensor x = constantPad(top("Tensor.reshape", {input, ints(flat)}), pad, Scalar(0.0));
    const std::vector<int64_t> unitDilation(dims, 1);
    Tensor sums = windows(x, kernel, stride, unitDilation);
    std::vector<int64_t> kernelDims;
    for (size_t d = 0; d < dims; ++d) kernelDims.push_back(sums.dim() - 1 - static_cast<int64_t>(d));
    sums = top("torch.sum", {sums, ints(kernelDims)});
    Tensor result;
    if (divisor) {
        result = top("torch.div", {sums, *divisor});
    } else {
        // Each window's divisor: the count of its cells inside the input (and inside the padding when counted).
        Shape spatialShape(input.sizes().end() - static_cast<std::ptrdiff_t>(dims), input.sizes().end());
        Shape maskShape{1, 1};
        maskShape.insert(maskShape.end(), spatialShape.begin(), spatialShape.end());
        const TensorOptions options{input.dtype(), input.device(), false};
        Tensor mask = ones(maskShape, options);
        std::vector<int64_t> padOnly;
        for (size_t d = dims; d-- > 0;) padOnly.insert(padOnly.end(), {padding[d], padding[d]});
        mask = constantPad(mask, padOnly, Scalar(includePad ? 1.0 : 0.0));
        mask = constantPad(mask, padExtra, Scalar(0.0));
        Tensor counts = top("torch.sum", {windows(mask, kernel, stride, unitDilation), ints(kernelDims)});
        result = top("torch.div", {sums, counts});
    }
    Shape outShape = leading;
    outShape.insert(outShape.end(), result.sizes().end() - static_cast<std::ptrdiff_t>(dims), result.sizes().end());
    return top("Tensor.reshape", {result, ints(outShape)});
}

/// F.max_pool: windows of the input padded with -inf; torch.max over each window, so the gradient goes to the
/// window's first maximum as PyTorch's max_pool indices do.
Tensor maxPool(const Args& a, size_t dims) {
    const Tensor& input = a.tensor(0);
    const auto kernel = spatial(a, 1, dims, "kernel_size");
    const auto stride = a.isNone(2) || a.intList(2).empty() ? kernel : spatial(a, 2, dims, "stride");
    const auto padding = spatial(a, 3, dims, "padding");
    const auto dilation = spatial(a, 4, dims, "dilation");
    const bool ceilMode = a.boolean(5);
    if (a.boolean(6)) fail(ErrorKind::NotImplemented, "max_pool with return_indices=True is not supported by cwb");
    const int64_t rank = input.dim();
    if (rank != static_cast<int64_t>(dims) + 1 && rank != static_cast<int64_t>(dims) + 2)
        fail(ErrorKind::Runtime, fmt::format("max_pool{}d: Expected {}D or {}D input tensor", dims, dims + 1, dims + 2));
    std::vector<int64_t> pad;
    std::vector<int64_t> extra(dims, 0);
    for (size_t d = 0; d < dims; ++d) {
        if (padding[d] * 2 > kernel[d])
            fail(ErrorKind::Runtime, fmt::format("pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                                                 padding[d], kernel[d], dilation[d]));
        const int64_t size = input.size(rank - static_cast<int64_t>(dims) + static_cast<int64_t>(d));
        const int64_t span = dilation[d] * (kernel[d] - 1) + 1;
        int64_t out = (size + 2 * padding[d] - span + (ceilMode ? stride[d] - 1 : 0)) / stride[d] + 1;
        if (ceilMode && (out - 1) * stride[d] >= size + padding[d]) --out;
        if (out <= 0) fail(ErrorKind::Runtime, fmt::format("max_pool{}d: output size is too small", dims));
        extra[d] = std::max<int64_t>((out - 1) * stride[d] + span - size - 2 * padding[d], 0);
    }
    for (size_t d = dims; d-- > 0;) pad.insert(pad.end(), {padding[d], padding[d] + extra[d]});
    const Shape leading(input.sizes().begin(), input.sizes().end() - static_cast<std::ptrdiff_t>(dims));
    Shape flat{1, -1};
    flat.insert(flat.end(), input.sizes().end() - static_cast<std::ptrdiff_t>(dims), input.sizes().end());
    const Tensor x = constantPad(top("Tensor.reshape", {input, ints(flat)}), pad, Scalar(-std::numeric_limits<double>::infinity()));
    const Tensor cols = windows(x, kernel, stride, dilation);  // (1, N*C, *out, *kernel)
    Shape byWindow(cols.sizes().begin(), cols.sizes().begin() + 2 + static_cast<std::ptrdiff_t>(dims));
    byWindow.push_back(-1);
    const Tensor result = op("torch.max", {top("Tensor.reshape", {cols, ints(byWindow)}), -1}).items()[0].toTensor();
    Shape outShape = leading;
    outShape.insert(outShape.end(), result.sizes().begin() + 2, result.sizes().end());
    return top("Tensor.reshape", {result, ints(outShape)});
}

/// F.adaptive_avg_pool: cell i of a dim averages [floor(i*in/out), ceil((i+1)*in/out)); a rectangle's mean is the
/// mean of its per-dim means (every row of a cell has the same count), so the dims are pooled one at a time.
Tensor adaptiveAvgPool(const Args& a, size_t dims) {
    Tensor x = a.tensor(0);
    std::vector<Value> sizes = a[1].isSequence() ? std::vector<Value>(a[1].items().begin(), a[1].items().end()) : std::vector<Value>(dims, a[1]);
    if (sizes.size() != dims) fail(ErrorKind::Runtime, fmt::format("adaptive_avg_pool{}d: output_size must be {}", dims, dims));
    for (size_t d = 0; d < dims; ++d) {
        const int64_t dim = x.dim() - static_cast<int64_t>(dims) + static_cast<int64_t>(d);
        const int64_t in = x.size(dim);
        const int64_t out = sizes[d].isNone() ? in : sizes[d].toInt();
        if (out == in) continue;
        std::vector<Value> cells;
        for (int64_t i = 0; i < out; ++i) {
            const int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
            cells.emplace_back(top("torch.mean", {top("torch.narrow", {x, dim, start, end - start}), ints({dim}), true}));
        }
        x = cells.size() == 1 ? cells[0].toTensor() : top("torch.cat", {Value::list(cells), dim});
    }
    return x;
}

Tensor batchNorm(const Args& a) {
    const Tensor input = a.tensor(0);
    const Tensor runningMean = a.optTensor(1), runningVar = a.optTensor(2), weight = a.optTensor(3), bias = a.optTensor(4);
    const bool training = a.boolean(5);
    const double momentum = a.real(6), eps = a.real(7);
    if (input.dim() < 2) fail(ErrorKind::Value, fmt::format("Expected 2D or more input (got {}D input)", input.dim()));
    std::vector<int64_t> reduce{0};
    for (int64_t d = 2; d < input.dim(); ++d) reduce.push_back(d);
    Shape channelShape(static_cast<size_t>(input.dim()), 1);
    channelShape[1] = input.size(1);
    auto perChannel = [&](const Tensor& t) { return top("Tensor.reshape", {t, ints(channelShape)}); };
    Tensor mean, var;
    if (training) {
        const int64_t count = input.numel() / input.size(1);
        if (count <= 1)
            fail(ErrorKind::Value, fmt::format("Expected more than 1 value per channel when training, got input size {}",
                                               Value::size(input.sizes()).repr()));
        mean = top("torch.mean", {input, ints(reduce)});
        var = top("torch.var", {input, ints(reduce)}, {{"correction", Value(int64_t{0})}});
        if (runningMean.defined() || runningVar.defined()) {
            const autograd::GradModeGuard noGrad(false);
            if (runningMean.defined())
                op("Tensor.copy_", {runningMean, top("torch.add", {top("torch.mul", {runningMean, 1.0 - momentum}), top("torch.mul", {top("Tensor.detach", {mean}), momentum})})});
            if (runningVar.defined()) {
                const Tensor unbiased = top("torch.mul", {top("Tensor.detach", {var}), static_cast<double>(count) / static_cast<double>(count - 1)});
                op("Tensor.copy_", {runningVar, top("torch.add", {top("torch.mul", {runningVar, 1.0 - momentum}), top("torch.mul", {unbiased, momentum})})});
            }
        }
    } else {
        if (!runningMean.defined() || !runningVar.defined())
            fail(ErrorKind::Runtime, "running_mean and running_var must be defined in evaluation mode");
        mean = runningMean;
        var = runningVar;
    }
    Tensor out = top("torch.mul", {top("torch.sub", {input, perChannel(mean)}), top("torch.rsqrt", {perChannel(top("torch.add", {var, eps}))})});
    if (weight.defined()) out = top("torch.mul", {out, perChannel(weight)});
    if (bias.defined()) out = top("torch.add", {out, perChannel(bias)});
    return out;
}

}  // namespace

void composite::CompositeRegistry::def(const std::vector<std::string>& names, std::string_view schema, Kernel kernel) {
    compositeNames().emplace(schema.substr(0, schema.find('(')));
    r_.def(names, schema, std::move(kernel));
}

bool isCompositeOp(std::string_view schemaName) { return compositeNames().contains(schemaName); }

void registerCompositeOps(OpRegistry& registry) {
    CompositeRegistry r(registry);
    r.def({"torch.diag", "Tensor.diag"}, "diag(Tensor self, int diagonal=0)", [](const Args& a) { return Value(diag(a.tensor(0), a.integer(1))); });
    r.def({"torch.topk", "Tensor.topk"}, "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True)",
          [](const Args& a) { return topk(a.tensor(0), a.integer(1), a.integer(2), a.boolean(3), a.boolean(4)); });
    // sort is topk of every element: stable (ties keep their order), NaN last ascending and first descending.
    r.def({"torch.sort", "Tensor.sort"}, "sort(Tensor self, int dim=-1, bool descending=False, bool stable=False)", [](const Args& a) {
        const Tensor& x = a.tensor(0);
        return topk(x, x.dim() == 0 ? 1 : x.size(a.integer(1)), a.integer(1), a.boolean(2), true, "torch.return_types.sort");
    });
    registerForeachOps(r);
    composite::registerIndexComposites(r);
    r.def({"F.pad", "torch._C._nn.pad"}, "pad(Tensor input, int[] pad, str mode='constant', float? value=None)", [](const Args& a) {
        if (a.str(2) != "constant")
            fail(ErrorKind::NotImplemented, fmt::format("F.pad: mode '{}' is not supported by cwb (only 'constant')", a.str(2)));
        return Value(constantPad(a.tensor(0), a.intList(1), Scalar(a.optReal(3).value_or(0.0))));
    });
    for (size_t dims : {size_t{1}, size_t{2}}) {
        const std::string name = fmt::format("conv{}d", dims);
        r.def({"F." + name, "torch." + name},
              name + "(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=[1], Any padding=0, int[] dilation=[1], int groups=1)",
              [dims](const Args& a) { return Value(convolution(a, dims)); });
    }
    for (size_t dims : {size_t{1}, size_t{2}}) {
        const std::string name = fmt::format("avg_pool{}d", dims);
        r.def({"F." + name, "torch." + name},
              name + "(Tensor input, int[] kernel_size, int[]? stride=None, int[] padding=[0], bool ceil_mode=False, bool count_include_pad=True, "
                     "int? divisor_override=None)",
              [dims](const Args& a) { return Value(avgPool(a, dims)); });
    }
    for (size_t dims : {size_t{1}, size_t{2}}) {
        const std::string name = fmt::format("max_pool{}d", dims);
        r.def({"F." + name, "torch." + name},
              name + "(Tensor input, int[] kernel_size, int[]? stride=None, int[] padding=[0], int[] dilation=[1], bool ceil_mode=False, "
                     "bool return_indices=False)",
              [dims](const Args& a) { return Value(maxPool(a, dims)); });
        const std::string adaptive = fmt::format("adaptive_avg_pool{}d", dims);
        r.def({"F." + adaptive, "torch." + adaptive}, adaptive + "(Tensor input, Any output_size)",
              [dims](const Args& a) { return Value(adaptiveAvgPool(a, dims)); });
    }
    // F.normalize: x / max(||x||_p, eps) along dim.
    r.def({"F.normalize"}, "normalize(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? out=None)", [](const Args& a) {
        const Tensor norm = top("torch.linalg.vector_norm", {a.tensor(0), a.real(1), ints({a.integer(2)}), true});
        return Value(top("torch.div", {a.tensor(0), top("torch.clamp_min", {norm, a.real(3)})}));
    });
    r.def({"F.batch_norm"},
          "batch_norm(Tensor input, Tensor(a! if training)? running_mean, Tensor(b! if training)? running_var, "
          "Tensor? weight=None, Tensor? bias=None, bool training=False, "
          "float momentum=0.1, float eps=1e-05)",
          [](const Args& a) { return Value(batchNorm(a)); });
    r.def({"torch.batch_norm"},
          "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a! if training)? running_mean, "
          "Tensor(b! if training)? running_var, bool training, float momentum, "
          "float eps, bool cudnn_enabled)",
          [](const Args& a) {
              std::vector<Value> reordered{a[0], a[3], a[4], a[1], a[2], a[5], a[6], a[7]};
              return Value(batchNorm(Args(std::move(reordered))));
          });
}

}  // namespace eng::tensor
