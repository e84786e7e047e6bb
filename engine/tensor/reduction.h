// Reductions with dim / keepdim as in PyTorch: sum, mean, prod, amax/amin, max/min (values and indices),
// argmax/argmin, var/std with correction, all/any, logsumexp, cumsum. Float sums accumulate in double.
#pragma once

#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor {

// None reduces every dim; so does an empty list (PyTorch's historical rule for sum/mean).
using DimList = std::optional<std::vector<int64_t>>;

Tensor sum(const Tensor& x, const DimList& dims = std::nullopt, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& x, const DimList& dims = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor amax(const Tensor& x, const DimList& dims = std::nullopt, bool keepdim = false);
Tensor amin(const Tensor& x, const DimList& dims = std::nullopt, bool keepdim = false);

// torch.max(x, dim) / torch.min(x, dim): a (values, indices) named tuple; indices are int64.
struct ValuesIndices {
    Tensor values;
    Tensor indices;
};
ValuesIndices maxDim(const Tensor& x, int64_t dim, bool keepdim = false);
ValuesIndices minDim(const Tensor& x, int64_t dim, bool keepdim = false);
// torch.max(x) / torch.min(x): the extreme of all elements as a 0-dim tensor.
Tensor maxAll(const Tensor& x);
Tensor minAll(const Tensor& x);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// correction: 1 is Bessel's (unbiased=True), 0 the population variance.
Tensor var(const Tensor& x, const DimList& dims = std::nullopt, double correction = 1.0, bool keepdim = false);
Tensor stdDev(const Tensor& x, const DimList& dims = std::nullopt, double correction = 1.0, bool keepdim = false);

Tensor all(const Tensor& x, const DimList& dims = std::nullopt, bool keepdim = false);
Tensor any(const Tensor& x, const DimList& dims = std::nullopt, bool keepdim = false);
Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
// torch.linalg.vector_norm / Tensor.norm(p) over dims.
Tensor vectorNorm(const Tensor& x, double ord = 2.0, const DimList& dims = std::nullopt, bool keepdim = false);

}  // namespace eng::tensor
