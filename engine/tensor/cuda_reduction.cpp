// Row-wise CUDA kernels (reductions along any dims, softmax/log_softmax) and matrix products via cuBLAS (linear
// through cuBLASLt with its epilogues).
// Reductions permute the reduced dims last and make the input contiguous, so every kernel sees rows.
#include <algorithm>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "cuda/blas.h"
#include "cuda/device_context.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/deferred_fill.h"
#include "tensor/shape.h"

namespace eng::tensor::cudaops {

namespace {

cuda::DeviceContext& contextFor(const Tensor& t) { return cuda::DeviceContext::get(normalizeDevice(t.device()).index()); }

cuda::LaunchShape rowGrid(cuda::DeviceContext& context, int64_t rows) {
    cuda::LaunchShape shape;
    const int64_t cap = static_cast<int64_t>(context.multiprocessorCount()) * 64;
    shape.gridX = static_cast<unsigned>(std::max<int64_t>(1, std::min(rows, cap)));
    shape.blockX = cudagen::kRowBlockThreads;
    return shape;
}

// A contiguous copy of x with the dims in `order` (every dim once), and its row/column split at `keep`.
Tensor permutedContiguous(const Tensor& x, const std::vector<size_t>& order) {
    Shape sizes, strides;
    for (size_t d : order) {
        sizes.push_back(x.sizes()[d]);
        strides.push_back(x.strides()[d]);
    }
    return contiguous(x.asStrided(sizes, strides, x.storageOffset()));
}

}  // namespace

void reduce(cudagen::RowReduction kind, const Tensor& input, const std::vector<bool>& reduced, const Tensor& out,
            const Tensor& indices, double correction) {
    std::vector<size_t> order;
    int64_t rows = 1, cols = 1;
    for (size_t d = 0; d < reduced.size(); ++d)
        if (!reduced[d]) {
            order.push_back(d);
            rows *= input.sizes()[d];
        }
    for (size_t d = 0; d < reduced.size(); ++d)
        if (reduced[d]) {
            order.push_back(d);
            cols *= input.sizes()[d];
        }
    if (rows == 0) return;
    const Tensor rowsView = permutedContiguous(input, order);
    // Kernels write rows in order: a fresh contiguous output matches; anything else goes through a temporary.
    const bool direct = out.isContiguous() && (!indices.defined() || indices.isContiguous());
    const Tensor target = direct ? out : empty(out.sizes(), out.dtype(), out.device());
    const Tensor targetIndices = !indices.defined() || direct ? indices : empty(indices.sizes(), indices.dtype(), indices.device());
    auto launch = [kind, inType = input.dtype(), outType = out.dtype(), rows, cols, correction](const Tensor& o, const Tensor& rowsIn,
                                                                                             const Tensor& idxOut) {
        cuda::DeviceContext& context = contextFor(rowsIn);
        const void* in = rowsIn.data();
        void* op = o.data();
        void* idx = idxOut.defined() ? idxOut.data() : nullptr;
        long long rowCount = rows, colCount = cols;
        double c = correction;
        void* args[] = {&in, &op, &idx, &rowCount, &colCount, &c};
        const KernelKey key = KernelKey(context, "row_reduction").add(static_cast<int64_t>(kind)).add(inType).add(outType);
        launchMemoized(
            context, key, [&] { return cudagen::translationUnit(cudagen::rowReductionKernel(kind, inType, outType)); }, rowGrid(context, rows),
            args);
    };
    // Inside a capture the launch waits for the first touch of the result (tensor/deferred_fill.h); a reduction with
    // indices writes two tensors and runs at once.
    if (targetIndices.defined()) launch(target, rowsView, targetIndices);
    else launchOrDefer(target, {&rowsView, 1}, [launch](const Tensor& o, std::span<const Tensor> in) { launch(o, in[0], Tensor()); });
    if (!direct) {
        copyInto(out, target);
        if (indices.defined()) copyInto(indices, targetIndices);
    }
}

void softmax(const Tensor& out, const Tensor& input, int64_t dim, bool logarithmic) {
    const auto d = static_cast<size_t>(dim);
    std::vector<size_t> order;
    for (size_t i = 0; i < input.sizes().size(); ++i)
        if (i != d) order.push_back(i);
    order.push_back(d);
    const Tensor rowsView = permutedContiguous(input, order);
    const int64_t cols = input.sizes()[d];
    const int64_t rows = cols == 0 ? 0 : input.numel() / cols;
    if (rows == 0) return;
    Tensor result = empty(rowsView.sizes(), input.dtype(), input.device());
    auto launch = [rows, cols, logarithmic](const Tensor& o, std::span<const Tensor> rowsIn) {
        cuda::DeviceContext& context = contextFor(o);
        const DType dtype = o.dtype();
        const void* in = rowsIn[0].data();
        void* op = o.data();
        long long rowCount = rows, colCount = cols;
        void* args[] = {&in, &op, &rowCount, &colCount};
        const KernelKey key = KernelKey(context, "row_softmax").add(dtype).add(int64_t{logarithmic});
        launchMemoized(
            context, key, [&] { return cudagen::translationUnit(cudagen::rowSoftmaxKernel(dtype, logarithmic)); }, rowGrid(context, rows), args);
    };
    launchOrDefer(result, {&rowsView, 1}, launch);
    // Back to the input's dim order: result's dim k holds input dim order[k].
    Shape sizes(order.size()), strides(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        sizes[order[k]] = result.sizes()[k];
        strides[order[k]] = result.strides()[k];
    }
    copyInto(out, result.asStrided(sizes, strides, result.storageOffset()));
}

namespace {

// A 2-D operand as column-major cuBLAS sees it: the row-major matrix X (r x c) is the column-major X^T.
struct BlasView {
    Tensor owner;  // a contiguous copy when the strides suit neither layout
    bool transposed = false;
    int64_t ld = 1;
};

BlasView asBlas(const Tensor& m) {
    const int64_t rows = m.sizes()[0], cols = m.sizes()[1];
    const int64_t s0 = m.strides()[0], s1 = m.strides()[1];
    if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= std::max<int64_t>(cols, 1)))
        return {m, false, rows == 1 ? std::max<int64_t>(cols, 1) : s0};
    if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= std::max<int64_t>(rows, 1)))
        return {m, true, cols == 1 ? std::max<int64_t>(rows, 1) : s1};
    return {contiguous(m), false, std::max<int64_t>(cols, 1)};
}

// The batch's matrices as cuBLAS operands: batch 0's layout, shared by every batch (a 3-D tensor's batch
// stride is uniform); when that layout needs a copy, the whole batch is made contiguous first.
BlasView asBatchedBlas(const Tensor& batch) {
    const BlasView first = asBlas(select(batch, 0, 0));
    if (first.owner.sharesStorageWith(batch)) return {batch, first.transposed, first.ld};
    const Tensor dense = contiguous(batch);
    return {dense, false, std::max<int64_t>(dense.sizes()[2], 1)};
}

}  // namespace

cuda::GemmType gemmType(DType dtype) {
    switch (dtype) {
        case DType::Float32: return cuda::GemmType::Float32;
        case DType::Float64: return cuda::GemmType::Float64;
        case DType::Float16: return cuda::GemmType::Float16;
        case DType::BFloat16: return cuda::GemmType::BFloat16;
        default:
            fail(ErrorKind::NotImplemented, fmt::format("\"addmm_cuda\" not implemented for '{}'", dtypeKernelName(dtype)));
    }
}

void gemm(const Tensor& out, const Tensor& a, const Tensor& b) {
    for (const Tensor* t : {&a, &b})
        if (normalizeDevice(t->device()) != normalizeDevice(out.device())) deviceMismatch(out.device(), t->device());
    const DType dtype = out.dtype();
    const cuda::GemmType type = gemmType(dtype);
    if (out.numel() == 0) return;
    const bool batched = out.dim() == 3;
    const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
    const Tensor target = out.isContiguous() ? out : empty(out.sizes(), dtype, out.device());
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS computes (n x m) = (n x k) (k x m).
    const BlasView left = batched ? asBatchedBlas(a) : asBlas(a), right = batched ? asBatchedBlas(b) : asBlas(b);
    // The call without its pointers, which are taken where it runs (at once, or when a capture's deferred result is
    // first touched: tensor/deferred_fill.h).
    cuda::GemmCall call;
    call.type = type;
    call.transposeA = right.transposed;
    call.transposeB = left.transposed;
    call.m = n;
    call.n = m;
    call.k = k;
    call.lda = right.ld;
    call.ldb = left.ld;
    call.ldc = std::max<int64_t>(n, 1);
    if (batched) {
        call.batch = out.sizes()[0];
        call.strideA = right.owner.strides()[0];
        call.strideB = left.owner.strides()[0];
        call.strideC = m * n;
    }
    auto run = [call](const Tensor& c, std::span<const Tensor> operands) mutable {
        call.a = operands[0].data();
        call.b = operands[1].data();
        call.c = c.data();
        cuda::gemm(normalizeDevice(c.device()).index(), call);
    };
    const Tensor operands[] = {right.owner, left.owner};
    launchOrDefer(target, operands, run, [&] {
        cuda::prewarmBlas(normalizeDevice(out.device()).index());
        return FillFunction(run);
    });
    if (!target.isSameTensor(out)) copyInto(out, target);
}

bool linearLtSupports(DType dtype) { return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::BFloat16; }

Tensor linearLt(const Tensor& x, const Tensor& weight, const Tensor& bias, cuda::Epilogue epilogue) {
    if (!linearLtSupports(x.dtype()) || weight.dtype() != x.dtype() || (bias.defined() && bias.dtype() != x.dtype()))
        fail(ErrorKind::Runtime, "cuBLASLt linear: operands must share one of float32, float16, bfloat16");
    if (x.dim() < 1 || weight.dim() != 2 || x.size(-1) != weight.size(1) || weight.size(1) == 0)
        fail(ErrorKind::Runtime, "cuBLASLt linear: x [..., k] and weight [n, k] with k > 0 expected");
    for (const Tensor* t : {&weight, &bias})
        if (t->defined() && normalizeDevice(t->device()) != normalizeDevice(x.device())) deviceMismatch(x.device(), t->device());
    const Tensor xc = contiguous(x), wc = contiguous(weight);
    const Tensor bc = bias.defined() ? contiguous(bias) : bias;
    Shape sizes = x.sizes();
    sizes.back() = weight.size(0);
    Tensor out = empty(sizes, x.dtype(), x.device());
    if (out.numel() == 0) return out;
    cuda::LinearCall call;
    call.type = gemmType(x.dtype());
    call.k = weight.size(1);
    call.n = weight.size(0);
    call.m = x.numel() / call.k;
    call.epilogue = epilogue;
    // Pointers where the call runs: at once, or when a capture's deferred result is first touched.
    auto run = [call](const Tensor& o, std::span<const Tensor> operands) mutable {
        call.x = operands[0].data();
        call.weight = operands[1].data();
        call.bias = operands.size() > 2 ? operands[2].data() : nullptr;
        call.out = o.data();
        cuda::linearLt(normalizeDevice(o.device()).index(), call);
    };
    std::vector<Tensor> operands{xc, wc};
    if (bc.defined()) operands.push_back(bc);
    launchOrDefer(out, operands, run, [&] {
        cuda::prewarmBlas(normalizeDevice(x.device()).index());
        return FillFunction(run);
    });
    return out;
}

}  // namespace eng::tensor::cudaops
