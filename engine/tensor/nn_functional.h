// torch.nn.functional building blocks: softmax / log_softmax, layer_norm, dropout, embedding,
// scaled_dot_product_attention and the common losses. Activations live in pointwise.h.
#pragma once

#include <optional>
#include <string_view>

#include "tensor/tensor.h"

namespace eng::tensor {

// dtype, when given, casts the input first (as PyTorch's dtype argument does).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor logSoftmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
// Normalises over the trailing normalizedShape dims (biased variance), then applies weight and bias if given.
Tensor layerNorm(const Tensor& x, const Shape& normalizedShape, const Tensor& weight = Tensor(),
                 const Tensor& bias = Tensor(), double eps = 1e-5);
/// torch.native_layer_norm: the output and the statistics its backward takes, each row's mean and 1/sqrt(var + eps)
/// with the normalized dims kept as 1 ([*, 1, ...]), in layerNormStatisticsDType.
struct LayerNormResult {
    Tensor out, mean, rstd;
};
LayerNormResult nativeLayerNorm(const Tensor& x, const Shape& normalizedShape, const Tensor& weight = Tensor(),
                                const Tensor& bias = Tensor(), double eps = 1e-5);
/// PyTorch's dtype of native_layer_norm's statistics: on CUDA the accumulation type (float32 for 16-bit inputs); on
/// the CPU float32 for a 16-bit input with float32 parameters (mixed), else the input's own dtype.
DType layerNormStatisticsDType(DType input, bool cuda, bool mixedParameters);
// Identity when !training or p == 0; otherwise zeroes with probability p and scales by 1 / (1 - p).
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);
// The factor dropout multiplies by, for 0 < p < 1: 0 with probability p, else 1 / (1 - p). Its backward reuses it.
Tensor dropoutScale(const Tensor& x, double p);
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> paddingIdx = std::nullopt);
Tensor scaledDotProductAttention(const Tensor& query, const Tensor& key, const Tensor& value,
                                 const Tensor& attnMask = Tensor(), double dropoutP = 0.0, bool isCausal = false,
                                 std::optional<double> scale = std::nullopt);
// reduction: "mean", "sum" or "none".
Tensor mseLoss(const Tensor& input, const Tensor& target, std::string_view reduction = "mean");
/// nll_loss's check of class indices: IndexError "Target N is out of bounds." for the first label outside
/// [0, classes) that is not ignoreIndex (on CUDA after one read back, where PyTorch asserts on the device).
void checkClassTargets(const Tensor& target, int64_t classes, int64_t ignoreIndex);
Tensor nllLoss(const Tensor& logProbs, const Tensor& target, std::string_view reduction = "mean", int64_t ignoreIndex = -100);
Tensor crossEntropy(const Tensor& input, const Tensor& target, std::string_view reduction = "mean",
                    int64_t ignoreIndex = -100);

}  // namespace eng::tensor
