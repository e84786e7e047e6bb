// Registry entries for matrix products (matmul/mm/bmm/mv/dot/outer/addmm, F.linear), the SVD (torch.linalg.svd,
// torch.linalg.svdvals, torch.svd), torch.nn.functional
// layers and losses (layer_norm, dropout, embedding, scaled_dot_product_attention, mse/nll/cross_entropy),
// and the torch.nn.init initialisers.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/cuda_attention.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/registry_support.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

std::vector<std::string> both(const char* name) { return {fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)}; }

// Fan-in / fan-out as torch.nn.init computes them (dims 0 and 1, times the receptive field).
std::pair<double, double> fans(const Tensor& t) {
    if (t.dim() < 2)
        fail(ErrorKind::Value, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
    double receptive = 1;
    for (int64_t d = 2; d < t.dim(); ++d) receptive *= static_cast<double>(t.sizes()[static_cast<size_t>(d)]);
    return {static_cast<double>(t.sizes()[1]) * receptive, static_cast<double>(t.sizes()[0]) * receptive};
}

// _calculate_correct_fan: the mode (any case) picks fan_in or fan_out.
double correctFan(std::string mode, double fanIn, double fanOut) {
    std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (mode != "fan_in" && mode != "fan_out")
        fail(ErrorKind::Value, fmt::format("Mode {} not supported, please use one of ['fan_in', 'fan_out']", mode));
    return mode == "fan_in" ? fanIn : fanOut;
}

double gainFor(const std::string& nonlinearity, double param) {
    if (nonlinearity == "relu") return std::sqrt(2.0);
    if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
    if (nonlinearity == "tanh") return 5.0 / 3.0;
    if (nonlinearity == "selu") return 0.75;
    if (nonlinearity == "linear" || nonlinearity == "sigmoid" || nonlinearity.starts_with("conv")) return 1.0;
    fail(ErrorKind::Value, fmt::format("Unsupported nonlinearity {}", nonlinearity));
}

}  // namespace

void registerNnOps(OpRegistry& r) {
    r.def(both("matmul"), "matmul(Tensor self, Tensor other)", [](const Args& a) { return Value(matmul(a.tensor(0), a.tensor(1))); });
    r.def(both("mm"), "mm(Tensor self, Tensor mat2)", [](const Args& a) { return Value(mm(a.tensor(0), a.tensor(1))); });
    r.def(both("bmm"), "bmm(Tensor self, Tensor mat2)", [](const Args& a) { return Value(bmm(a.tensor(0), a.tensor(1))); });
    r.def(both("mv"), "mv(Tensor self, Tensor vec)", [](const Args& a) { return Value(mv(a.tensor(0), a.tensor(1))); });
    r.def(both("dot"), "dot(Tensor self, Tensor tensor)", [](const Args& a) { return Value(dot(a.tensor(0), a.tensor(1))); });
    r.def(both("outer"), "outer(Tensor self, Tensor vec2)", [](const Args& a) { return Value(outer(a.tensor(0), a.tensor(1))); });
    r.def(both("addmm"), "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)", [](const Args& a) {
        return Value(addmm(a.tensor(0), a.tensor(1), a.tensor(2), a.scalar(3).toDouble(), a.scalar(4).toDouble()));
    });
    r.def({"torch.linalg.svd"}, "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None)", [](const Args& a) {
        const SvdResult f = svd(a.tensor(0), a.boolean(1));
        return Value::namedTuple("torch.return_types.linalg_svd", {"U", "S", "Vh"}, {f.u, f.s, f.vh});
    });
    r.def({"torch.linalg.svdvals"}, "linalg_svdvals(Tensor A, *, str? driver=None)",
          [](const Args& a) { return Value(svd(a.tensor(0), false, false).s); });
    r.def(both("svd"), "svd(Tensor self, bool some=True, bool compute_uv=True)", [](const Args& a) {
        const Tensor& x = a.tensor(0);
        if (!a.boolean(2)) {
            // PyTorch's torch.svd without vectors: zero-filled U (m x m) and V (n x n) beside the singular values.
            const TensorOptions options{.dtype = x.dtype(), .device = x.device()};
            Shape u(x.sizes().begin(), x.sizes().end() - 1), v(x.sizes().begin(), x.sizes().end() - 2);
            u.push_back(x.size(-2));
            v.push_back(x.size(-1));
            v.push_back(x.size(-1));
            return Value::namedTuple("torch.return_types.svd", {"U", "S", "V"}, {zeros(u, options), svd(x, false, false).s, zeros(v, options)});
        }
        const SvdResult f = svd(x, !a.boolean(1));
        return Value::namedTuple("torch.return_types.svd", {"U", "S", "V"}, {f.u, f.s, contiguous(transpose(f.vh, -2, -1))});
    });
    r.def({"F.linear", "torch._C._nn.linear"}, "linear(Tensor input, Tensor weight, Tensor? bias=None)",
          [](const Args& a) { return Value(linear(a.tensor(0), a.tensor(1), a.optTensor(2))); });

    r.def({"F.layer_norm", "torch.layer_norm"},
          "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05)",
          [](const Args& a) { return Value(layerNorm(a.tensor(0), a.intList(1), a.optTensor(2), a.optTensor(3), a.real(4))); });
    // The output with the statistics its backward takes (AOT Autograd's forward saves them; no eager derivative).
    r.def({"torch.native_layer_norm"}, "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps)",
          [](const Args& a) {
              const LayerNormResult result = nativeLayerNorm(a.tensor(0), a.intList(1), a.optTensor(2), a.optTensor(3), a.real(4));
              return Value::tuple({Value(result.out), Value(result.mean), Value(result.rstd)});
          });
    r.def({"F.dropout"}, "dropout(Tensor(a! if inplace) input, float p=0.5, bool training=True, bool inplace=False)", [](const Args& a) {
        const Tensor out = dropout(a.tensor(0), a.real(1), a.boolean(2));
        if (a.boolean(3) && !out.isSameTensor(a.tensor(0))) return Value(copyInto(a.tensor(0), out));
        return Value(out);
    });
    r.def({"torch.dropout"}, "dropout(Tensor input, float p, bool train)",
          [](const Args& a) { return Value(dropout(a.tensor(0), a.real(1), a.boolean(2))); });
    r.def({"F.embedding"},
          "embedding(Tensor input, Tensor weight, int? padding_idx=None, float? max_norm=None, float norm_type=2.0, "
          "bool scale_grad_by_freq=False, bool sparse=False)",
          [](const Args& a) { return Value(embedding(a.tensor(0), a.tensor(1), a.optInteger(2))); });
    r.def({"F.scaled_dot_product_attention"},
          "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, "
          "bool is_causal=False, float? scale=None, bool enable_gqa=False)",
          [](const Args& a) {
              return Value(scaledDotProductAttention(a.tensor(0), a.tensor(1), a.tensor(2), a.optTensor(3), a.real(4), a.boolean(5),
                                                     a.optReal(6)));
          });
    // cwb's own: the flash forward and backward of scaled_dot_product_attention (no mask or dropout) on CUDA. AOT
    // Autograd's joint graph calls the forward, which returns (out, logsumexp) as PyTorch's
    // _scaled_dot_product_flash_attention does, and hands the saved logsumexp to the backward; the eager derivative
    // calls the backward without it. The three gradients come stacked (cudaops::flashAttentionBackward).
    r.def({"torch._flash_attention_forward"}, "_flash_attention_forward(Tensor query, Tensor key, Tensor value, bool is_causal, float scale)",
          [](const Args& a) {
              if (!cudaops::flashAttentionBackwardSupported(a.tensor(0), a.tensor(1), a.tensor(2)))
                  fail(ErrorKind::Runtime, "_flash_attention_forward: query, key and value must be 4-D CUDA float16/bfloat16 tensors of one "
                                           "shape with head dim 16, 32, 64 or 128");
              Tensor logsumexp;
              Tensor out = cudaops::flashAttention(a.tensor(0), a.tensor(1), a.tensor(2), a.boolean(3), a.real(4), &logsumexp);
              return Value::tuple({Value(std::move(out)), Value(std::move(logsumexp))});
          });
    r.def({"torch._flash_attention_backward"},
          "_flash_attention_backward(Tensor grad, Tensor query, Tensor key, Tensor value, Tensor out, bool is_causal, float scale, "
          "Tensor? logsumexp=None)",
          [](const Args& a) {
              return Value(cudaops::flashAttentionBackward(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.tensor(4), a.boolean(5), a.real(6),
                                                           a.optTensor(7)));
          });
    r.def({"F.mse_loss"}, "mse_loss(Tensor input, Tensor target, Any size_average=None, Any reduce=None, str reduction='mean')",
          [](const Args& a) { return Value(mseLoss(a.tensor(0), a.tensor(1), a.str(4))); });
    r.def({"F.nll_loss"},
          "nll_loss(Tensor input, Tensor target, Tensor? weight=None, Any size_average=None, int ignore_index=-100, Any reduce=None, "
          "str reduction='mean')",
          [](const Args& a) {
              if (a.optTensor(2).defined()) fail(ErrorKind::NotImplemented, "nll_loss: class weights are not supported");
              return Value(nllLoss(a.tensor(0), a.tensor(1), a.str(6), a.integer(4)));
          });
    r.def({"F.cross_entropy"},
          "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, Any size_average=None, int ignore_index=-100, "
          "Any reduce=None, str reduction='mean', float label_smoothing=0.0)",
          [](const Args& a) {
              if (a.optTensor(2).defined() || a.real(7) != 0.0)
                  fail(ErrorKind::NotImplemented, "cross_entropy: class weights and label smoothing are not supported");
              return Value(crossEntropy(a.tensor(0), a.tensor(1), a.str(6), a.integer(4)));
          });

    // torch.nn.init with PyTorch's arithmetic (bound = sqrt(3) * std, std from the gain and the fans), so the bounds
    // and thus the values are torch's to the last bit.
    r.def({"torch.nn.init.uniform_"}, "uniform_(Tensor tensor, float a=0.0, float b=1.0, Generator? generator=None)",
          [](const Args& a) { return Value(uniformInPlace(a.tensor(0), a.real(1), a.real(2), &generatorFrom(a[3]))); });
    r.def({"torch.nn.init.normal_"}, "normal_(Tensor tensor, float mean=0.0, float std=1.0, Generator? generator=None)",
          [](const Args& a) { return Value(normalInPlace(a.tensor(0), a.real(1), a.real(2), &generatorFrom(a[3]))); });
    r.def({"torch.nn.init.trunc_normal_"},
          "trunc_normal_(Tensor tensor, float mean=0.0, float std=1.0, float a=-2.0, float b=2.0, Generator? generator=None)",
          [](const Args& a) {
              return Value(truncNormalInPlace(a.tensor(0), a.real(1), a.real(2), a.real(3), a.real(4), &generatorFrom(a[5])));
          });
    r.def({"torch.nn.init.zeros_"}, "zeros_(Tensor tensor)", [](const Args& a) { return Value(fillInPlace(a.tensor(0), Scalar(int64_t{0}))); });
    r.def({"torch.nn.init.ones_"}, "ones_(Tensor tensor)", [](const Args& a) { return Value(fillInPlace(a.tensor(0), Scalar(int64_t{1}))); });
    r.def({"torch.nn.init.constant_"}, "constant_(Tensor tensor, Scalar val)",
          [](const Args& a) { return Value(fillInPlace(a.tensor(0), a.scalar(1))); });
    r.def({"torch.nn.init.calculate_gain"}, "calculate_gain(str nonlinearity, float? param=None)",
          [](const Args& a) { return Value(gainFor(a.str(0), a.optReal(1).value_or(0.01))); });
    for (const char* name : {"kaiming_uniform_", "kaiming_normal_"}) {
        const bool uniform = std::string_view(name) == "kaiming_uniform_";
        r.def({fmt::format("torch.nn.init.{}", name)},
              fmt::format("{}(Tensor tensor, float a=0, str mode='fan_in', str nonlinearity='leaky_relu', Generator? generator=None)", name),
              [uniform](const Args& a) {
                  const auto [fanIn, fanOut] = fans(a.tensor(0));
                  const double std = gainFor(a.str(3), a.real(1)) / std::sqrt(correctFan(a.str(2), fanIn, fanOut));
                  if (!uniform) return Value(normalInPlace(a.tensor(0), 0.0, std, &generatorFrom(a[4])));
                  const double bound = std::sqrt(3.0) * std;
                  return Value(uniformInPlace(a.tensor(0), -bound, bound, &generatorFrom(a[4])));
              });
    }
    for (const char* name : {"xavier_uniform_", "xavier_normal_"}) {
        const bool uniform = std::string_view(name) == "xavier_uniform_";
        r.def({fmt::format("torch.nn.init.{}", name)}, fmt::format("{}(Tensor tensor, float gain=1.0, Generator? generator=None)", name),
              [uniform](const Args& a) {
                  const auto [fanIn, fanOut] = fans(a.tensor(0));
                  const double std = a.real(1) * std::sqrt(2.0 / (fanIn + fanOut));
                  if (!uniform) return Value(normalInPlace(a.tensor(0), 0.0, std, &generatorFrom(a[2])));
                  const double bound = std::sqrt(3.0) * std;
                  return Value(uniformInPlace(a.tensor(0), -bound, bound, &generatorFrom(a[2])));
              });
    }
    r.def({"torch.nn.init._calculate_fan_in_and_fan_out"}, "_calculate_fan_in_and_fan_out(Tensor tensor)", [](const Args& a) {
        const auto [fanIn, fanOut] = fans(a.tensor(0));
        return Value::tuple({Value(static_cast<int64_t>(fanIn)), Value(static_cast<int64_t>(fanOut))});
    });
    r.def({"torch.nn.init._calculate_correct_fan"}, "_calculate_correct_fan(Tensor tensor, str mode)", [](const Args& a) {
        const auto [fanIn, fanOut] = fans(a.tensor(0));
        return Value(static_cast<int64_t>(correctFan(a.str(1), fanIn, fanOut)));
    });
}

}  // namespace eng::tensor
