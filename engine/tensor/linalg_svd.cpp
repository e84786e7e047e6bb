// The singular value decomposition (torch.linalg.svd, torch.svd, torch.linalg.svdvals) through LAPACK's divide and
// conquer driver, gesdd (PyTorch's default on the CPU), from OpenBLAS. Tensors on another device are decomposed on
// the host and the factors moved back, and a batch of matrices is decomposed one matrix at a time.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/linalg.h"
#include "tensor/shape.h"

extern "C" {
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu, float* vt,
             const int* ldvt, float* work, const int* lwork, int* iwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u, const int* ldu, double* vt,
             const int* ldvt, double* work, const int* lwork, int* iwork, int* info);
}

namespace eng::tensor {

namespace {

void gesdd(const char* jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* work, int lwork, int* iwork, int* info) {
    sgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
}
void gesdd(const char* jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt, double* work, int lwork, int* iwork,
           int* info) {
    dgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
}

/// One row-major m x n matrix. LAPACK is column-major: the buffer is Aᵀ (n x m) to it, and Aᵀ = U' S V'ᵀ gives
/// A = V' S U'ᵀ, so LAPACK's VT buffer read row-major is A's U, and its U buffer read row-major is A's Vh.
template <typename T>
void decompose(const T* matrix, int64_t m, int64_t n, bool full, bool vectors, T* uOut, T* sOut, T* vhOut) {
    const int64_t k = std::min(m, n);
    std::vector<T> a(matrix, matrix + m * n);
    const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
    const int rowsT = static_cast<int>(n), colsT = static_cast<int>(m);
    const int ldu = std::max(1, rowsT), ldvt = std::max(1, static_cast<int>(full ? m : k));
    std::vector<int> iwork(static_cast<size_t>(8 * k));
    int info = 0;
    T query = 0;
    gesdd(&jobz, rowsT, colsT, a.data(), sOut, vhOut, ldu, uOut, ldvt, &query, -1, iwork.data(), &info);
    std::vector<T> work(static_cast<size_t>(std::max<T>(query, 1)));
    gesdd(&jobz, rowsT, colsT, a.data(), sOut, vhOut, ldu, uOut, ldvt, work.data(), static_cast<int>(work.size()), iwork.data(), &info);
    if (info > 0)
        fail(ErrorKind::Runtime, fmt::format("linalg.svd: The algorithm failed to converge because the input matrix is ill-conditioned or has "
                                             "too many repeated singular values (error code: {}).", info));
}

}  // namespace

SvdResult svd(const Tensor& a, bool fullMatrices, bool computeVectors) {
    if (a.dim() < 2)
        fail(ErrorKind::Runtime, "linalg.svd: The input tensor A must have at least 2 dimensions.");
    if (a.dtype() != DType::Float32 && a.dtype() != DType::Float64)
        fail(ErrorKind::Runtime, fmt::format("linalg.svd: Expected a floating point or complex tensor as input. Got {}", dtypeKernelName(a.dtype())));
    const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
    const Shape batch(a.sizes().begin(), a.sizes().end() - 2);
    int64_t count = 1;
    for (int64_t b : batch) count *= b;
    const Tensor host = contiguous(to(a, std::nullopt, kCpu));
    auto shaped = [&](std::initializer_list<int64_t> tail) {
        Shape s = batch;
        s.insert(s.end(), tail);
        return empty(s, a.dtype());
    };
    const int64_t uCols = fullMatrices ? m : k, vhRows = fullMatrices ? n : k;
    SvdResult r{shaped({m, uCols}), shaped({k}), shaped({vhRows, n})};
    if (k == 0 && fullMatrices) {
        // An empty matrix has no singular values; its full factors are identities.
        r.u = contiguous(expand(eye(m, std::nullopt, TensorOptions{.dtype = a.dtype()}), r.u.sizes()));
        r.vh = contiguous(expand(eye(n, std::nullopt, TensorOptions{.dtype = a.dtype()}), r.vh.sizes()));
    }
    auto run = [&]<typename T>() {
        std::vector<T> uScratch(static_cast<size_t>(m * uCols)), vhScratch(static_cast<size_t>(vhRows * n));
        for (int64_t i = 0; i < count && k > 0; ++i) {
            T* u = computeVectors ? r.u.dataAs<T>() + i * m * uCols : uScratch.data();
            T* vh = computeVectors ? r.vh.dataAs<T>() + i * vhRows * n : vhScratch.data();
            decompose(host.dataAs<T>() + i * m * n, m, n, fullMatrices, computeVectors, u, r.s.dataAs<T>() + i * k, vh);
        }
    };
    if (a.dtype() == DType::Float32) run.template operator()<float>();
    else run.template operator()<double>();
    if (a.device() != kCpu) r = {to(r.u, std::nullopt, a.device()), to(r.s, std::nullopt, a.device()), to(r.vh, std::nullopt, a.device())};
    return r;
}

}  // namespace eng::tensor
