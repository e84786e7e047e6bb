// Matrix product kernels. Every product reduces to gemmInto on 2-D strided views (bmm to one batched call where it
// can), which on the CPU hands float32 and bfloat16 products to oneDNN or OpenBLAS as cpuGemmLibrary chooses, and
// BLAS-compatible layouts to cblas_?gemm without copying (the rest copied to contiguous first).
#include "tensor/linalg.h"

#include <cblas.h>

#include <cstdlib>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/deferred_fill.h"
#include "tensor/host_route.h"
#include "tensor/iteration.h"
#include "tensor/onednn_matmul.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/shape.h"
#include "tensor/simd_dispatch.h"

namespace eng::tensor {

namespace {

// A 2-D operand as BLAS sees it: transposed or not, with its leading dimension.
struct BlasOperand {
    Tensor storageOwner;  // keeps a contiguous copy alive when one was needed
    const void* data;
    CBLAS_TRANSPOSE trans;
    int64_t ld;
};

BlasOperand asBlas(const Tensor& m) {
    const int64_t rows = m.sizes()[0], cols = m.sizes()[1];
    const int64_t s0 = m.strides()[0], s1 = m.strides()[1];
    if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= std::max<int64_t>(cols, 1)))
        return {m, m.data(), CblasNoTrans, rows == 1 ? std::max<int64_t>(cols, 1) : s0};
    if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= std::max<int64_t>(rows, 1)))
        return {m, m.data(), CblasTrans, cols == 1 ? std::max<int64_t>(rows, 1) : s1};
    Tensor copy = contiguous(m);
    return {copy, copy.data(), CblasNoTrans, std::max<int64_t>(cols, 1)};
}

// OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's) picks its kernels by the CPU's model number, and 0.3.21
// takes its SSE3 kernels ("Prescott") for a model it does not know, as virtual machines report: on the lent H100
// host's 16-core "Intel(R) Xeon(R) Processor" an 8192x1024 @ 1024x4096 float product ran at 0.17-0.21 TFLOP/s
// against 0.5-0.9 with OPENBLAS_CORETYPE=SkylakeX. There the kernels are chosen again by the instruction set the
// host has (simd_dispatch.h), as that variable would; a user's OPENBLAS_CORETYPE is left alone.
extern "C" {
[[gnu::weak]] char* openblas_get_corename(void);
[[gnu::weak]] void gotoblas_dynamic_init(void);
[[gnu::weak]] void gotoblas_dynamic_quit(void);
}

void chooseBlasKernels() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (!openblas_get_corename || !gotoblas_dynamic_init || !gotoblas_dynamic_quit || std::getenv("OPENBLAS_CORETYPE")) return;
        if (std::string_view(openblas_get_corename()) != "Prescott") return;
        const SimdLevel host = hostSimdLevel();
        const char* core = host == SimdLevel::Avx512 ? "SkylakeX" : host == SimdLevel::Avx2 ? "Haswell" : nullptr;
        if (!core) return;
        setenv("OPENBLAS_CORETYPE", core, 1);  // what gotoblas_dynamic_init reads
        gotoblas_dynamic_quit();
        gotoblas_dynamic_init();
        unsetenv("OPENBLAS_CORETYPE");
    });
}

enum class CpuGemmLibrary { OpenBlas, OneDnn };

// Products of fewer multiply-adds than this (batch * M * N * K) stay with OpenBLAS in float32: there oneDNN's
// fixed cost per call (memory objects, the OpenMP team) outweighs its faster kernels.
constexpr int64_t kOneDnnMinFloatWork = int64_t{1} << 21;

// The one place that chooses the library of a CPU product: oneDNN for every bfloat16 product (its AMX or
// AVX512-BF16 kernels accumulate in float32 and round once, where OpenBLAS has no bfloat16 product and would need
// both operands widened to float32 first), and for float32 products of kOneDnnMinFloatWork multiply-adds or more;
// OpenBLAS for the rest and every other dtype. CWB_CPU_GEMM=openblas or =onednn forces one (where it applies).
CpuGemmLibrary cpuGemmLibrary(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k) {
    if ((dtype != DType::Float32 && dtype != DType::BFloat16) || !onednn::available()) return CpuGemmLibrary::OpenBlas;
    if (const char* forced = std::getenv("CWB_CPU_GEMM"))
        return std::string_view(forced) == "openblas" ? CpuGemmLibrary::OpenBlas : CpuGemmLibrary::OneDnn;
    if (dtype == DType::BFloat16) return CpuGemmLibrary::OneDnn;
    const double work = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    return work >= static_cast<double>(kOneDnnMinFloatWork) ? CpuGemmLibrary::OneDnn : CpuGemmLibrary::OpenBlas;
}

// out (contiguous, M x N) = a (M x K) @ b (K x N), all of dtype `dtype`.
void gemmInto(const Tensor& out, const Tensor& a, const Tensor& b) {
    const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
    if (out.numel() == 0) return;
    const DType dtype = out.dtype();
    if (k == 0) {
        fillInPlace(out, Scalar(int64_t{0}));
        return;
    }
    if (cudaops::onCuda(out) && isComplex(dtype)) {
        // cuBLAS's complex products are not wired up: the CPU's cgemm/zgemm on host copies, written back.
        Tensor host = hostroute::toHost(out);
        gemmInto(host, hostroute::toHost(a), hostroute::toHost(b));
        hostroute::writeBack(out, host);
        return;
    }
    if (cudaops::onCuda(out)) return cudaops::gemm(out, a, b);
    if (out.device().isCpu() && cpuGemmLibrary(dtype, 1, m, n, k) == CpuGemmLibrary::OneDnn && onednn::matmulInto(out, a, b)) return;
    chooseBlasKernels();
    if (dtype == DType::Float32 || dtype == DType::Float64) {
        const BlasOperand left = asBlas(a), right = asBlas(b);
        const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
        if (dtype == DType::Float32)
            cblas_sgemm(CblasRowMajor, left.trans, right.trans, M, N, K, 1.0f, static_cast<const float*>(left.data),
                        static_cast<blasint>(left.ld), static_cast<const float*>(right.data), static_cast<blasint>(right.ld),
                        0.0f, out.dataAs<float>(), N);
        else
            cblas_dgemm(CblasRowMajor, left.trans, right.trans, M, N, K, 1.0, static_cast<const double*>(left.data),
                        static_cast<blasint>(left.ld), static_cast<const double*>(right.data), static_cast<blasint>(right.ld),
                        0.0, out.dataAs<double>(), N);
        return;
    }
    if (isComplex(dtype) && out.device().isCpu()) {
        const BlasOperand left = asBlas(a), right = asBlas(b);
        const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
        // cblas_?gemm's complex forms take alpha and beta by address, as (real, imaginary) pairs.
        const double one64[2] = {1.0, 0.0}, zero64[2] = {0.0, 0.0};
        const float one32[2] = {1.0f, 0.0f}, zero32[2] = {0.0f, 0.0f};
        if (dtype == DType::Complex64)
            cblas_cgemm(CblasRowMajor, left.trans, right.trans, M, N, K, one32, left.data, static_cast<blasint>(left.ld), right.data,
                        static_cast<blasint>(right.ld), zero32, out.data(), N);
        else
            cblas_zgemm(CblasRowMajor, left.trans, right.trans, M, N, K, one64, left.data, static_cast<blasint>(left.ld), right.data,
                        static_cast<blasint>(right.ld), zero64, out.data(), N);
        return;
    }
    if (isReducedFloat(dtype)) {
        Tensor product = empty(out.sizes(), DType::Float32, out.device());
        gemmInto(product, to(a, DType::Float32), to(b, DType::Float32));
        copyInto(out, product);
        return;
    }
    if (dtype == DType::Bool) fail(ErrorKind::NotImplemented, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    dispatchDType(dtype, [&]<typename T>() {
        if constexpr (std::is_integral_v<T>) {
            const T* pa = a.dataAs<const T>();
            const T* pb = b.dataAs<const T>();
            T* po = out.dataAs<T>();
            const int64_t as0 = a.strides()[0], as1 = a.strides()[1], bs0 = b.strides()[0], bs1 = b.strides()[1];
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    int64_t acc = 0;
                    for (int64_t p = 0; p < k; ++p) acc += static_cast<int64_t>(pa[i * as0 + p * as1]) * static_cast<int64_t>(pb[p * bs0 + j * bs1]);
                    po[i * n + j] = static_cast<T>(acc);
                }
        }
    });
}

// The bias row of a CPU product that oneDNN can add in its matmul primitive, or an undefined tensor: `bias` of
// out's dtype, [n], or 2-D [1, n] or [m, n] broadcast along its rows (row stride 0), where cpuGemmLibrary gives
// the product to oneDNN. The one place that decides the CPU bias fusion of addmm and linear.
Tensor fusableBiasRow(const Tensor& bias, DType dtype, int64_t m, int64_t n, int64_t k) {
    if (!bias.defined() || !bias.device().isCpu() || bias.dtype() != dtype || structuralOpsRecorded() || !cpuBiasFusesInProduct(dtype, m, n, k))
        return Tensor();
    if (bias.dim() == 1 && bias.size(0) == n) return bias;
    if (bias.dim() == 2 && bias.size(1) == n && (bias.size(0) == 1 || (bias.size(0) == m && bias.stride(0) == 0))) return select(bias, 0, 0);
    return Tensor();
}

Tensor activated(const Tensor& y, LinearActivation activation) {
    switch (activation) {
        case LinearActivation::Relu: return unary(UnaryOp::Relu, y);
        case LinearActivation::GeluTanh: return gelu(y, "tanh");
        case LinearActivation::GeluErf: return gelu(y, "none");
        case LinearActivation::None: break;
    }
    return y;
}

// out (M x N) = activation(a @ b + row over every row) in one oneDNN call (the bias added to the float32
// accumulator and the activation applied before the one rounding, as PyTorch's CPU addmm and its oneDNN linear
// fusions do); `row` may be undefined. Where oneDNN declines the layout: the product, the add and the activation,
// each rounded as eager rounds them.
Tensor gemmWithBiasRow(const Tensor& a, const Tensor& b, const Tensor& row, LinearActivation activation = LinearActivation::None) {
    Tensor out = empty({a.size(0), b.size(1)}, a.dtype(), a.device());
    std::vector<Tensor> inputs{a, b};
    if (row.defined()) inputs.push_back(row);
    fillOrDefer(out, std::move(inputs), [activation](const Tensor& o, std::span<const Tensor> in) {
        const Tensor bias = in.size() > 2 ? in[2] : Tensor();
        if (onednn::matmulInto(o, in[0], in[1], bias, activation)) return;
        gemmInto(o, in[0], in[1]);
        if (bias.defined() || activation != LinearActivation::None) copyInto(o, activated(bias.defined() ? add(o, bias) : o, activation));
    });
    return out;
}

// The C++ type names PyTorch's dtype-mismatch messages use.
std::string_view cppTypeName(DType d) {
    switch (d) {
        case DType::Float32: return "float";
        case DType::Float64: return "double";
        case DType::Float16: return "c10::Half";
        case DType::BFloat16: return "c10::BFloat16";
        case DType::Int64: return "long int";
        case DType::Int32: return "int";
        case DType::Int16: return "short int";
        case DType::Int8: return "signed char";
        case DType::UInt8: return "unsigned char";
        case DType::Bool: return "bool";
        case DType::Complex64: return "c10::complex<float>";
        case DType::Complex128: return "c10::complex<double>";
    }
    return "?";
}

void checkSameDType(const Tensor& a, const Tensor& b, const char* what) {
    if (a.dtype() != b.dtype())
        fail(ErrorKind::Runtime, fmt::format("expected {} to have the same dtype, but got: {} != {}", what,
                                             cppTypeName(a.dtype()), cppTypeName(b.dtype())));
    if (normalizeDevice(a.device()) != normalizeDevice(b.device())) cudaops::deviceMismatch(a.device(), b.device());
}

/// A switch that is on unless its environment variable is "0".
bool switchedOn(const char* name) {
    const char* setting = std::getenv(name);
    return !setting || std::string_view(setting) != "0";
}

}  // namespace

bool cpuBiasFusesInProduct(DType dtype, int64_t m, int64_t n, int64_t k) {
    // CWB_CPU_BIAS_FUSION=0 keeps the product and a separate bias add (to compare the two). Read at each call, not
    // once: a process that sets it between compiles (the script tests' `# env:`) gets what it set; the lowered graph,
    // part of the FX graph cache key, records which form was chosen.
    return switchedOn("CWB_CPU_BIAS_FUSION") && m > 0 && n > 0 && k > 0 && (dtype == DType::Float32 || dtype == DType::BFloat16) &&
           cpuGemmLibrary(dtype, 1, m, n, k) == CpuGemmLibrary::OneDnn;
}

bool cpuActivationFusesInProduct(DType dtype, int64_t m, int64_t n, int64_t k) {
    return switchedOn("CWB_CPU_EPILOGUE_FUSION") && cpuBiasFusesInProduct(dtype, m, n, k);
}

Tensor mm(const Tensor& a, const Tensor& b) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.mm", [&] { return RecordedCall{{Value(a), Value(b)}, {}}; }, [&] { return mm(a, b); });
    if (a.dim() != 2) fail(ErrorKind::Runtime, fmt::format("self must be a matrix"));
    if (b.dim() != 2) fail(ErrorKind::Runtime, fmt::format("mat2 must be a matrix"));
    if (a.sizes()[1] != b.sizes()[0])
        fail(ErrorKind::Runtime, fmt::format("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a.sizes()[0],
                                             a.sizes()[1], b.sizes()[0], b.sizes()[1]));
    checkSameDType(a, b, "m1 and m2");
    Tensor out = empty({a.sizes()[0], b.sizes()[1]}, a.dtype(), a.device());
    if (isFloating(out.dtype()))  // BLAS (or float32 BLAS and a rounding): cannot fail, so the capture may defer it
        fillOrDefer(out, {a, b}, [](const Tensor& o, std::span<const Tensor> in) { gemmInto(o, in[0], in[1]); });
    else
        gemmInto(out, a, b);
    return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.bmm", [&] { return RecordedCall{{Value(a), Value(b)}, {}}; }, [&] { return bmm(a, b); });
    if (a.dim() != 3) fail(ErrorKind::Runtime, fmt::format("batch1 must be a 3D tensor"));
    if (b.dim() != 3) fail(ErrorKind::Runtime, fmt::format("batch2 must be a 3D tensor"));
    const int64_t batch = a.sizes()[0];
    if (b.sizes()[0] != batch || b.sizes()[1] != a.sizes()[2])
        fail(ErrorKind::Runtime, fmt::format("Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                                             batch, a.sizes()[2], b.sizes()[0], b.sizes()[1]));
    checkSameDType(a, b, "batch1 and batch2");
    Tensor out = empty({batch, a.sizes()[1], b.sizes()[2]}, a.dtype(), a.device());
    if (cudaops::onCuda(out) && a.sizes()[2] > 0) {
        cudaops::gemm(out, a, b);
        return out;
    }
    if (out.numel() == 0) return out;
    // On the CPU one batched oneDNN call where it takes the product (its threads split the batch too), else a
    // product per matrix.
    const int64_t m = a.sizes()[1], k = a.sizes()[2], n = b.sizes()[2];
    if (k > 0 && out.device().isCpu() && cpuGemmLibrary(out.dtype(), batch, m, n, k) == CpuGemmLibrary::OneDnn &&
        onednn::matmulInto(out, a, b))
        return out;
    for (int64_t i = 0; i < batch; ++i) gemmInto(select(out, 0, i), select(a, 0, i), select(b, 0, i));
    return out;
}

Tensor mv(const Tensor& a, const Tensor& v) {
    if (a.dim() != 2 || v.dim() != 1)
        fail(ErrorKind::Runtime, fmt::format("vector + matrix @ vector expected, got 1, {}, {}", a.dim(), v.dim()));
    if (a.sizes()[1] != v.sizes()[0])
        fail(ErrorKind::Runtime, fmt::format("size mismatch, got input ({}), mat ({}x{}), vec ({})", a.sizes()[0], a.sizes()[0],
                                             a.sizes()[1], v.sizes()[0]));
    return reshape(mm(a, unsqueeze(v, 1)), {a.sizes()[0]});
}

Tensor dot(const Tensor& a, const Tensor& b) {
    if (a.dim() != 1 || b.dim() != 1)
        fail(ErrorKind::Runtime, fmt::format("1D tensors expected, but got {}D and {}D tensors", a.dim(), b.dim()));
    if (a.numel() != b.numel())
        fail(ErrorKind::Runtime, fmt::format("inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number "
                                             "of elements, but got {} and {} elements respectively",
                                             a.numel(), b.numel(), a.numel(), b.numel()));
    if (a.dtype() != b.dtype())
        fail(ErrorKind::Runtime, fmt::format("dot : expected both vectors to have same dtype, but found {} and {}",
                                             dtypeKernelName(a.dtype()), dtypeKernelName(b.dtype())));
    return reshape(mm(unsqueeze(a, 0), unsqueeze(b, 1)), {});
}

Tensor outer(const Tensor& a, const Tensor& b) { return mul(unsqueeze(a, 1), b); }

Tensor matmul(const Tensor& a, const Tensor& b) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.matmul", [&] { return RecordedCall{{Value(a), Value(b)}, {}}; }, [&] { return matmul(a, b); });
    const int64_t da = a.dim(), db = b.dim();
    if (da == 0 || db == 0)
        fail(ErrorKind::Runtime, fmt::format("both arguments to matmul need to be at least 1D, but they are {}D and {}D", da, db));
    if (da == 1 && db == 1) return dot(a, b);
    if (da == 2 && db == 1) return mv(a, b);
    if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), std::vector<int64_t>{0});
    if (da == 2 && db == 2) return mm(a, b);
    if (da >= 3 && (db == 1 || db == 2)) {
        // Fold a's batch dims into its rows: one gemm instead of many.
        const Tensor right = db == 1 ? unsqueeze(b, 1) : b;
        Shape outShape(a.sizes().begin(), a.sizes().end() - 1);
        const Tensor folded = reshape(a, {-1, a.sizes().back()});
        Tensor product = mm(folded, right);
        if (db == 2) outShape.push_back(b.sizes()[1]);
        return reshape(product, outShape);
    }
    // General batched case: broadcast the batch dims, then one bmm.
    const Tensor left = da == 1 ? unsqueeze(a, 0) : a;
    const Tensor right = db == 1 ? unsqueeze(b, 1) : b;
    const int64_t n = left.size(-2), k = left.size(-1), k2 = right.size(-2), p = right.size(-1);
    if (k != k2)
        fail(ErrorKind::Runtime, fmt::format("Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                                             shapeNumel(Shape(left.sizes().begin(), left.sizes().end() - 2)), k, 
                                             shapeNumel(Shape(right.sizes().begin(), right.sizes().end() - 2)), k2));
    const Shape batchA(left.sizes().begin(), left.sizes().end() - 2);
    const Shape batchB(right.sizes().begin(), right.sizes().end() - 2);
    const Shape batch = broadcastShapes(batchA, batchB);
    const int64_t batchCount = shapeNumel(batch);
    Shape expandA = batch, expandB = batch;
    expandA.insert(expandA.end(), {n, k});
    expandB.insert(expandB.end(), {k, p});
    Tensor product = bmm(reshape(expand(left, expandA), {batchCount, n, k}), reshape(expand(right, expandB), {batchCount, k, p}));
    Shape outShape = batch;
    if (da > 1) outShape.push_back(n);
    if (db > 1) outShape.push_back(p);
    return reshape(product, outShape);
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha) {
    if (alpha == 1.0 && beta == 1.0 && a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0) && a.dtype() == b.dtype() &&
        a.device().isCpu() && b.device().isCpu())
        if (const Tensor row = fusableBiasRow(bias, a.dtype(), a.size(0), b.size(1), a.size(1)); row.defined())
            return gemmWithBiasRow(a, b, row);
    Tensor product = mm(a, b);
    if (alpha != 1.0) product = mul(product, Scalar(alpha));
    if (beta == 0.0) return product;
    const Tensor scaledBias = beta == 1.0 ? bias : mul(bias, Scalar(beta));
    if (broadcastShapes(scaledBias.sizes(), product.sizes()) != product.sizes())
        fail(ErrorKind::Runtime, fmt::format("The expanded size of the tensor ({}) must match the existing size ({})",
                                             product.size(-1), scaledBias.size(-1)));
    return add(scaledBias, product);
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    if (x.dim() == 0) fail(ErrorKind::Runtime, "both arguments to linear need to be at least 1D, but they are 0D and 2D");
    if (x.size(-1) != weight.size(-1))
        fail(ErrorKind::Runtime, fmt::format("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                                             x.numel() / std::max<int64_t>(x.size(-1), 1), x.size(-1), weight.size(-1),
                                             weight.dim() == 2 ? weight.size(0) : 1));
    // On CUDA one cuBLASLt call, the bias added to the float32 accumulator before the one rounding, as PyTorch's
    // CUDA addmm does and as the compiled linear does (a 16-bit product rounded, then a rounded bias add, differs).
    if (cudaops::onCuda(x) && cudaops::linearLtSupports(x.dtype()) && weight.dtype() == x.dtype() && weight.dim() == 2 &&
        (!bias.defined() || (bias.dtype() == x.dtype() && bias.dim() == 1 && bias.size(0) == weight.size(0))))
        return cudaops::linearLt(x, weight, bias, bias.defined() ? cuda::Epilogue::Bias : cuda::Epilogue::None);
    // On the CPU a bias oneDNN takes is added in its matmul, on x's rows folded into one matrix.
    if (x.device().isCpu() && weight.device().isCpu() && weight.dim() == 2 && weight.dtype() == x.dtype()) {
        const int64_t k = x.size(-1), n = weight.size(0), m = x.numel() / std::max<int64_t>(k, 1);
        if (const Tensor row = fusableBiasRow(bias, x.dtype(), m, n, k); row.defined()) {
            Shape outShape(x.sizes().begin(), x.sizes().end() - 1);
            outShape.push_back(n);
            return reshape(gemmWithBiasRow(reshape(x, {m, k}), t(weight), row), outShape);
        }
    }
    const Tensor product = matmul(x, t(weight));
    return bias.defined() ? add(product, bias) : product;
}

Tensor linearWithActivation(const Tensor& x, const Tensor& weight, const Tensor& bias, LinearActivation activation) {
    const bool cpu = x.device().isCpu() && weight.device().isCpu() && (!bias.defined() || bias.device().isCpu());
    if (activation == LinearActivation::None || !cpu || structuralOpsRecorded() || x.dim() == 0 || weight.dim() != 2 ||
        weight.dtype() != x.dtype() || x.size(-1) != weight.size(1) ||
        (bias.defined() && (bias.dtype() != x.dtype() || bias.dim() != 1 || bias.size(0) != weight.size(0))))
        return activated(linear(x, weight, bias), activation);
    const int64_t k = x.size(-1), n = weight.size(0), m = x.numel() / std::max<int64_t>(k, 1);
    if (!cpuActivationFusesInProduct(x.dtype(), m, n, k)) return activated(linear(x, weight, bias), activation);
    Shape outShape(x.sizes().begin(), x.sizes().end() - 1);
    outShape.push_back(n);
    return reshape(gemmWithBiasRow(reshape(x, {m, k}), t(weight), bias, activation), outShape);
}

}  // namespace eng::tensor
