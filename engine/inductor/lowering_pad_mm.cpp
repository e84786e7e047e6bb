// shape_padding (Inductor's pad_mm pass) in lowering: a matrix product (mm, bmm, addmm, and matmul of two 2-D or two
// 3-D operands or of an N-D by a 2-D one, which Inductor sees as mm/bmm) whose m, k or n is not a multiple of what tensor cores want (8
// elements of a 16-bit float, 4 of a float32) reads operands padded with zeros to aligned sizes, and its result is
// the slice of the original size. Zeros add nothing to any dot product, so the values are the unpadded product's.
// It applies where Inductor's can_pad does (the options' devices, CUDA; floating operands; static sizes; nothing
// empty) and where it pays: force_shape_pad, or a compute-bound product whose padded form, timed on the device,
// beats the plain one by 10%. A CUDA linear whose output rows are unaligned gets a padded weight (linearOutputPadding),
// and a value several nodes read is stored with padded rows (realizeShared: Inductor's comprehensive_padding).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "cuda/events.h"
#include "inductor/lowering_registry.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/shape.h"

namespace eng::inductor::lowering {

// A loader that reads x inside and 0 outside (the index is wrapped into range, so no load leaves x).
LValue padWithZeros(Lowering& lowering, const LValue& x, const std::map<int64_t, int64_t>& pads) {
    LValue out = x;
    std::map<int64_t, int64_t> extents;
    for (const auto& [dim, pad] : pads) {
        if (pad == 0) continue;
        const std::optional<int64_t> size = constantValue(x.sizes[static_cast<size_t>(dim)]);
        if (!size) throw LoweringError("shape_padding: a padded dim of an addmm input is dynamic");
        extents[dim] = *size;
        out.sizes[static_cast<size_t>(dim)] = indexConstant(*size + pad);
    }
    if (extents.empty()) return x;
    const std::string origin = fmt::format("constant_pad_nd_{}", lowering.graph().opOfNode.size());
    lowering.graph().opOfNode[origin] = "constant_pad_nd";
    out.origins = mergeOrigins({x}, origin);
    out.buffer = -1;
    out.loader = [inner = x.loader, extents, dtype = x.dtype](const std::vector<Index>& index) {
        std::vector<Index> wrapped = index;
        ExprPtr inside;
        for (const auto& [dim, size] : extents) {
            wrapped[static_cast<size_t>(dim)] = modulo(index[static_cast<size_t>(dim)], indexConstant(size));
            ExprPtr here = binary(ElementOp::Lt, indexValue(index[static_cast<size_t>(dim)], DType::Int64), constantInt(size, DType::Int64));
            inside = inside ? binary(ElementOp::LogicalAnd, inside, here) : here;
        }
        return where(inside, inner(wrapped), constantFloat(0.0, dtype));
    };
    return out;
}

namespace {

/// Inductor's comprehensive_padding: strides over padding_stride_threshold elements are padded to
/// padding_alignment_bytes.
constexpr int64_t kPaddingStrideThreshold = 1024;
constexpr int64_t kPaddingAlignmentBytes = 128;

bool padsOn(const LoweringOptions& options, tensor::Device device) {
    return options.shapePadding &&
           std::find(options.paddingDevices.begin(), options.paddingDevices.end(), device.type()) != options.paddingDevices.end();
}

int64_t alignmentOf(DType dtype) {
    if (dtype == DType::Float16 || dtype == DType::BFloat16) return 8;
    return dtype == DType::Float32 ? 4 : 0;
}

/// Zeros to add after a dim of `size` (0 for a dynamic size, an aligned one, or 1, which squeezes away).
int64_t paddingOf(const Index& size, int64_t alignment) {
    const std::optional<int64_t> n = constantValue(size);
    if (!n || alignment == 0 || *n % alignment == 0 || *n == 1) return 0;
    return (*n / alignment + 1) * alignment - *n;
}

/// One product as Inductor's pad_mm sees it: its operands, the rows of mat1 (m), the shared dim (k), the columns of
/// mat2 (n), and for addmm the added input with beta and alpha.
struct Product {
    std::string op;  // mm, bmm, addmm
    LValue mat1, mat2, input;
    double beta = 1, alpha = 1;
    int64_t mPad = 0, kPad = 0, nPad = 0;
};

tensor::Tensor padTensor(const tensor::Tensor& t, int64_t rowDim, int64_t rowPad, int64_t colPad) {
    std::vector<int64_t> sizes = t.sizes();
    sizes[static_cast<size_t>(rowDim)] += rowPad;
    sizes[static_cast<size_t>(rowDim) + 1] += colPad;
    tensor::Tensor padded = tensor::zeros(sizes, tensor::TensorOptions{.dtype = t.dtype(), .device = t.device()});
    tensor::copyInto(tensor::narrow(tensor::narrow(padded, rowDim, 0, t.sizes()[static_cast<size_t>(rowDim)]), rowDim + 1, 0,
                                    t.sizes()[static_cast<size_t>(rowDim) + 1]),
                     t);
    return padded;
}

/// Inductor's is_mm_compute_bound: a product whose arithmetic intensity (flops per element moved) is below half the
/// device's balance of compute to memory bandwidth is bound by memory, where padding only adds traffic; it is left
/// alone without timing. The balances are an H100's (dense 16-bit tensor-core and float32 peaks over its HBM3
/// bandwidth), the device class PyTorch's own numbers come from here.
bool computeBound(int64_t m, int64_t k, int64_t n, DType dtype, std::string& why) {
    const double moved = static_cast<double>(m * k + k * n + m * n);
    const double intensity = static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) / moved;
    const double balance = (dtype == DType::Float32 ? 67e12 : 989e12) / 3.35e12;
    if (intensity > balance * 0.5) return true;
    why = fmt::format("not compute-bound (arithmetic intensity {:.1f}, below {:.1f})", intensity, balance * 0.5);
    return false;
}

/// Inductor's should_pad benchmark: the plain product against pad + product + slice, on operands of the graph's
/// sizes on its device (filled with ones: timing needs no random numbers, and the program's generator keeps its
/// state). Padding pays when it is faster by Inductor's multiplier, 1.1. Decisions are kept per shape.
bool paddingPays(const Product& p, const std::vector<int64_t>& a, const std::vector<int64_t>& b, tensor::Device device, std::string& timing) {
    static std::mutex mutex;
    static std::map<std::string, std::pair<bool, std::string>> decided;
    const std::string key = fmt::format("{} {} {} {} {}", p.op, fmt::join(a, "x"), fmt::join(b, "x"), tensor::dtypeName(p.mat1.dtype), device.str());
    std::lock_guard lock(mutex);
    if (auto it = decided.find(key); it != decided.end()) {
        timing = it->second.second;
        return it->second.first;
    }
    const tensor::TensorOptions options{.dtype = p.mat1.dtype, .device = device};
    const tensor::Tensor x = tensor::ones(a, options), y = tensor::ones(b, options);
    const int64_t rowDim = static_cast<int64_t>(a.size()) - 2;
    auto product = [&](const tensor::Tensor& l, const tensor::Tensor& r) { return rowDim ? tensor::bmm(l, r) : tensor::mm(l, r); };
    auto seconds = [&](const std::function<void()>& run) {
        run();
        if (device.type() == tensor::DeviceType::CUDA) cuda::synchronizeDevice(device.index());
        const auto start = std::chrono::steady_clock::now();
        constexpr int kRepeats = 5;
        for (int i = 0; i < kRepeats; ++i) run();
        if (device.type() == tensor::DeviceType::CUDA) cuda::synchronizeDevice(device.index());
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kRepeats;
    };
    const double plain = seconds([&] { product(x, y); });
    // The padded form as the compiled graph runs it: a generated kernel writes each padded operand (one read and one
    // write of it, timed as a copy of the operand: the eager copy into a strided slice of zeros is several times
    // slower than that kernel, and made a 4.4 ms product whose padded form takes 0.9 ms look unpadded-best), then
    // the product, whose result is read in place as its slice (no copy).
    const tensor::Tensor xPadded = padTensor(x, rowDim, p.mPad, p.kPad), yPadded = padTensor(y, rowDim, p.kPad, p.nPad);
    const bool padsX = p.mPad || p.kPad, padsY = p.kPad || p.nPad;
    const double padded = seconds([&] {
        if (padsX) tensor::clone(x);
        if (padsY) tensor::clone(y);
        product(xPadded, yPadded);
    });
    const bool pays = plain > padded * 1.1;
    timing = fmt::format("timed {:.1f} us plain, {:.1f} us padded", plain * 1e6, padded * 1e6);
    decided[key] = {pays, timing};
    return pays;
}

std::optional<LValue> lowerPaddedProduct(Lowering& lowering, const std::string& op, const fx::Node& node) {
    const LoweringOptions& options = lowering.options();
    const tensor::Device device = lowering.graph().device;
    if (!padsOn(options, device)) return std::nullopt;
    for (const auto& [name, arg] : node.kwargs)
        if (name != "beta" && name != "alpha") return std::nullopt;  // out=...: the eager op writes it
    NodeArgs args(lowering, node);
    Product p;
    const bool addmm = op == "addmm";
    if (node.args.size() > (addmm ? 3u : 2u)) return std::nullopt;
    p.mat1 = args.tensor(addmm ? 1 : 0, addmm ? "mat1" : "input");
    p.mat2 = args.tensor(addmm ? 2 : 1, addmm ? "mat2" : op == "mm" || op == "bmm" ? "mat2" : "other");
    if (addmm) {
        p.input = args.tensor(0, "input");
        constexpr size_t kKeywordOnly = SIZE_MAX;
        p.beta = args.number(kKeywordOnly, "beta", 1.0);
        p.alpha = args.number(kKeywordOnly, "alpha", 1.0);
    }
    const int64_t rank = p.mat1.dim();
    // matmul of an N-D input by a 2-D operand is mm of its rows, as Inductor sees it (the head's input gradient,
    // [8, 1024, 50257] @ [50257, 768]): its k and n are padded, its rows never.
    const bool foldedRows = !addmm && op != "mm" && op != "bmm" && rank >= 3 && p.mat2.dim() == 2;
    if (!foldedRows && (rank != p.mat2.dim() || (rank != 2 && rank != 3) || (addmm && rank != 2) || (op == "mm" && rank != 2) ||
                        (op == "bmm" && rank != 3)))
        return std::nullopt;
    if (!foldedRows && rank == 3 && !sameIndex(p.mat1.sizes[0], p.mat2.sizes[0])) return std::nullopt;  // matmul would broadcast the batch
    p.op = addmm ? "addmm" : foldedRows ? "matmul" : rank == 3 ? "bmm" : "mm";
    const DType dtype = p.mat1.dtype;
    if (!tensor::isFloating(dtype) || p.mat2.dtype != dtype || (addmm && p.input.dtype != dtype)) return std::nullopt;
    const std::vector<int64_t> a = lowering.hints(p.mat1.sizes), b = lowering.hints(p.mat2.sizes);
    for (int64_t size : a) if (size == 0) return std::nullopt;
    for (int64_t size : b) if (size == 0) return std::nullopt;
    const size_t rows = static_cast<size_t>(rank) - 2;
    const int64_t alignment = alignmentOf(dtype);
    p.mPad = foldedRows ? 0 : paddingOf(p.mat1.sizes[rows], alignment);
    p.kPad = paddingOf(p.mat1.sizes[rows + 1], alignment);
    p.nPad = paddingOf(p.mat2.sizes.back(), alignment);
    if (p.mPad == 0 && p.kPad == 0 && p.nPad == 0) return std::nullopt;
    std::string why = "force_shape_pad";
    int64_t m = a[rows];
    for (size_t d = 0; foldedRows && d < rows; ++d) m *= a[d];
    const int64_t k = a[rows + 1], n = b.back();
    const std::vector<int64_t> timedA = foldedRows ? std::vector<int64_t>{m, k} : a;
    if (!options.forceShapePad && !(computeBound(m, k, n, dtype, why) && paddingPays(p, timedA, b, device, why))) {
        lowering.graph().passNotes.push_back(fmt::format("shape_padding: {} ({}) left unpadded: {}", p.op, node.name, why));
        return std::nullopt;
    }

    const int64_t r = static_cast<int64_t>(rows);
    const int64_t r2 = foldedRows ? 0 : r;  // mat2's rows
    std::vector<LValue> inputs{padWithZeros(lowering, p.mat1, {{r, p.mPad}, {r + 1, p.kPad}}),
                               padWithZeros(lowering, p.mat2, {{r2, p.kPad}, {r2 + 1, p.nPad}})};
    if (addmm) {
        // The input broadcasts over the product: only a dim of its own that is not 1 grows (as Inductor's pad_addmm).
        std::map<int64_t, int64_t> pads;
        const int64_t d = p.input.dim();
        if (d >= 1 && constantValue(p.input.sizes[static_cast<size_t>(d - 1)]) != 1) pads[d - 1] = p.nPad;
        if (d == 2 && constantValue(p.input.sizes[0]) != 1) pads[0] = p.mPad;
        inputs.insert(inputs.begin(), padWithZeros(lowering, p.input, pads));
    }
    std::vector<Index> paddedSizes = inputs[addmm ? 1 : 0].sizes;
    paddedSizes.back() = inputs.back().sizes.back();
    std::vector<Index> sizes = p.mat1.sizes;
    sizes.back() = p.mat2.sizes.back();
    LValue product = lowering.externCall(p.op, std::move(inputs), paddedSizes, dtype, [op = p.op, beta = p.beta, alpha = p.alpha](const vm::ValueList& t) {
        auto at = [&](size_t i) { return t.at(i).as<vm::TensorObject>().value; };
        if (op == "addmm") return vm::makeTensor(tensor::addmm(at(0), at(1), at(2), beta, alpha));
        if (op == "matmul") return vm::makeTensor(tensor::matmul(at(0), at(1)));
        return vm::makeTensor(op == "bmm" ? tensor::bmm(at(0), at(1)) : tensor::mm(at(0), at(1)));
    });
    lowering.graph().passNotes.push_back(fmt::format("shape_padding: {} ({}) of [{}] @ [{}] padded to [{}] ({}); the result is its [{}] slice",
                                                     p.op, node.name, fmt::join(a, ", "), fmt::join(b, ", "),
                                                     fmt::join(lowering.hints(paddedSizes), ", "), why, fmt::join(lowering.hints(sizes), ", ")));
    // The result reads the padded product's buffer in place: the rows and columns it keeps have the same index.
    product.sizes = std::move(sizes);
    product.buffer = -1;
    return product;
}

}  // namespace

int64_t linearOutputPadding(Lowering& lowering, const fx::Node& node, const LValue& x, const LValue& w) {
    const LoweringOptions& options = lowering.options();
    const tensor::Device device = lowering.graph().device;
    if (!padsOn(options, device) || x.dim() < 2 || w.dim() != 2 || x.dtype != w.dtype) return 0;
    Product p;
    p.op = "mm";
    p.mat1 = x;
    p.mat2 = w;
    p.nPad = paddingOf(w.sizes[0], alignmentOf(x.dtype));
    const std::vector<int64_t> xs = lowering.hints(x.sizes), ws = lowering.hints(w.sizes);
    int64_t m = 1;
    for (size_t d = 0; d + 1 < xs.size(); ++d) m *= xs[d];
    if (p.nPad == 0 || m == 0 || ws[1] == 0 || !constantValue(w.sizes[1])) return 0;
    std::string why = "force_shape_pad";
    if (!options.forceShapePad && !(computeBound(m, ws[1], ws[0], x.dtype, why) && paddingPays(p, {m, ws[1]}, {ws[1], ws[0]}, device, why))) {
        lowering.graph().passNotes.push_back(fmt::format("shape_padding: linear ({}) left unpadded: {}", node.name, why));
        return 0;
    }
    lowering.graph().passNotes.push_back(fmt::format("shape_padding: linear ({}) of [{}, {}] @ [{}, {}] padded to {} columns ({}); the result "
                                                     "is read in place at that row stride",
                                                     node.name, m, ws[1], ws[1], ws[0], ws[0] + p.nPad, why));
    return p.nPad;
}

void realizeShared(Lowering& lowering, LValue& value, const std::string& origin) {
    const int id = lowering.realize(value, origin);
    const std::optional<int64_t> n = value.dim() >= 2 ? constantValue(value.sizes.back()) : std::nullopt;
    if (!padsOn(lowering.options(), lowering.graph().device) || !tensor::isFloating(value.dtype) || !n || *n <= kPaddingStrideThreshold) return;
    const int64_t alignment = kPaddingAlignmentBytes / static_cast<int64_t>(tensor::itemSize(value.dtype));
    if (*n % alignment == 0) return;
    GraphBuffer& b = lowering.buffer(id);
    std::vector<Index> padded = b.sizes;
    padded.back() = indexConstant((*n / alignment + 1) * alignment);
    b.strides = contiguousStrides(padded);
    value.loader = lowering.bufferLoader(id);
    lowering.graph().passNotes.push_back(fmt::format("comprehensive_padding: {} ({}, read by several nodes) stored with rows of {} padded to {}",
                                                     b.name, origin, *n, lowering.hint(padded.back())));
}

void registerMatrixProductLowerings(LoweringRegistry& registry) {
    registry.def({"mm", "bmm", "addmm", "matmul", "__matmul__"}, OpFamily::MatrixProduct, lowerPaddedProduct);
}

}  // namespace eng::inductor::lowering
