// Registry entries for reductions (sum, mean, prod, amax/amin, max/min with their three overloads, argmax,
// var/std with correction or unbiased, all/any, logsumexp, cumsum, norms) and softmax / log_softmax.
#include <cmath>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

namespace {

Value valuesIndices(const char* op, const ValuesIndices& vi) {
    return Value::namedTuple(fmt::format("torch.return_types.{}", op), {"values", "indices"}, {vi.values, vi.indices});
}

// F.softmax(x) without dim: PyTorch's legacy implicit choice.
int64_t implicitSoftmaxDim(const Tensor& x) { return (x.dim() == 0 || x.dim() == 1 || x.dim() == 3) ? 0 : 1; }

void defineVariance(OpRegistry& r, const char* name, bool takeSqrt) {
    auto run = [takeSqrt](const Tensor& x, const DimList& dims, double correction, bool keepdim) {
        return Value(takeSqrt ? stdDev(x, dims, correction, keepdim) : var(x, dims, correction, keepdim));
    };
    const std::vector<std::string> names = {fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)};
    r.def(names, fmt::format("{}(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)", name),
          [run](const Args& a) {
              return run(a.tensor(0), a.optIntList(1), a.optScalar(2) ? a.scalar(2).toDouble() : 1.0, a.boolean(3));
          });
    r.def(names, fmt::format("{}(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)", name),
          [run](const Args& a) { return run(a.tensor(0), a.optIntList(1), a.boolean(2) ? 1.0 : 0.0, a.boolean(3)); });
    r.def(names, fmt::format("{}(Tensor self, bool unbiased=True)", name),
          [run](const Args& a) { return run(a.tensor(0), std::nullopt, a.boolean(1) ? 1.0 : 0.0, false); });
}

}  // namespace

void registerReductionOps(OpRegistry& r) {
    r.def({"torch.sum", "Tensor.sum"}, "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
          [](const Args& a) { return Value(sum(a.tensor(0), a.optIntList(1), a.boolean(2), a.optDType(3))); });
    r.def({"torch.mean", "Tensor.mean"}, "mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
          [](const Args& a) { return Value(mean(a.tensor(0), a.optIntList(1), a.boolean(2), a.optDType(3))); });
    r.def({"torch.prod", "Tensor.prod"}, "prod(Tensor self, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
          [](const Args& a) { return Value(prod(a.tensor(0), a.optInteger(1), a.boolean(2), a.optDType(3))); });
    r.def({"torch.amax", "Tensor.amax"}, "amax(Tensor self, int[1] dim=[], bool keepdim=False)",
          [](const Args& a) { return Value(amax(a.tensor(0), a.intList(1), a.boolean(2))); });
    r.def({"torch.amin", "Tensor.amin"}, "amin(Tensor self, int[1] dim=[], bool keepdim=False)",
          [](const Args& a) { return Value(amin(a.tensor(0), a.intList(1), a.boolean(2))); });
    for (const char* name : {"max", "min"}) {
        const bool isMax = std::string_view(name) == "max";
        const std::vector<std::string> names = {fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)};
        r.def(names, fmt::format("{}(Tensor self)", name),
              [isMax](const Args& a) { return Value(isMax ? maxAll(a.tensor(0)) : minAll(a.tensor(0))); });
        r.def(names, fmt::format("{}(Tensor self, int dim, bool keepdim=False)", name), [isMax, name](const Args& a) {
            return valuesIndices(name, isMax ? maxDim(a.tensor(0), a.integer(1), a.boolean(2)) : minDim(a.tensor(0), a.integer(1), a.boolean(2)));
        });
        r.def(names, fmt::format("{}(Tensor self, Tensor other)", name),
              [isMax](const Args& a) { return Value(isMax ? maximum(a.tensor(0), a.tensor(1)) : minimum(a.tensor(0), a.tensor(1))); });
    }
    r.def({"torch.argmax", "Tensor.argmax"}, "argmax(Tensor self, int? dim=None, bool keepdim=False)",
          [](const Args& a) { return Value(argmax(a.tensor(0), a.optInteger(1), a.boolean(2))); });
    r.def({"torch.argmin", "Tensor.argmin"}, "argmin(Tensor self, int? dim=None, bool keepdim=False)",
          [](const Args& a) { return Value(argmin(a.tensor(0), a.optInteger(1), a.boolean(2))); });
    defineVariance(r, "var", false);
    defineVariance(r, "std", true);
    r.def({"torch.all", "Tensor.all"}, "all(Tensor self, int[1]? dim=None, bool keepdim=False)",
          [](const Args& a) { return Value(all(a.tensor(0), a.optIntList(1), a.boolean(2))); });
    r.def({"torch.any", "Tensor.any"}, "any(Tensor self, int[1]? dim=None, bool keepdim=False)",
          [](const Args& a) { return Value(any(a.tensor(0), a.optIntList(1), a.boolean(2))); });
    r.def({"torch.logsumexp", "Tensor.logsumexp"}, "logsumexp(Tensor self, int[1] dim, bool keepdim=False)",
          [](const Args& a) { return Value(logsumexp(a.tensor(0), a.intList(1), a.boolean(2))); });
    r.def({"torch.cumsum", "Tensor.cumsum"}, "cumsum(Tensor self, int dim, *, ScalarType? dtype=None)",
          [](const Args& a) { return Value(cumsum(a.tensor(0), a.integer(1), a.optDType(2))); });
    r.def({"torch.norm", "Tensor.norm"}, "norm(Tensor self, Scalar? p=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
          [](const Args& a) {
              const double p = a.optScalar(1) ? a.scalar(1).toDouble() : 2.0;
              return Value(vectorNorm(a.optDType(4) ? to(a.tensor(0), *a.optDType(4)) : a.tensor(0), p, a.optIntList(2), a.boolean(3)));
          });
    r.def({"torch.norm", "Tensor.norm"}, "norm(Tensor self, str p, int[1]? dim=None, bool keepdim=False)", [](const Args& a) {
        if (a.str(1) != "fro") fail(ErrorKind::Runtime, fmt::format("norm: unsupported p '{}'", a.str(1)));
        return Value(vectorNorm(a.tensor(0), 2.0, a.optIntList(2), a.boolean(3)));
    });
    r.def({"torch.linalg.vector_norm"}, "vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
          [](const Args& a) {
              const Tensor x = a.optDType(4) ? to(a.tensor(0), *a.optDType(4)) : a.tensor(0);
              return Value(vectorNorm(x, a.scalar(1).toDouble(), a.optIntList(2), a.boolean(3)));
          });

    for (const char* name : {"softmax", "log_softmax"}) {
        const bool logarithmic = std::string_view(name) == "log_softmax";
        auto run = [logarithmic](const Tensor& x, int64_t dim, std::optional<DType> dtype) {
            return Value(logarithmic ? logSoftmax(x, dim, dtype) : softmax(x, dim, dtype));
        };
        r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name), fmt::format("torch.special.{}", name)},
              fmt::format("{}(Tensor self, int dim, ScalarType? dtype=None)", name),
              [run](const Args& a) { return run(a.tensor(0), a.integer(1), a.optDType(2)); });
        r.def({fmt::format("F.{}", name)}, fmt::format("{}(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None)", name),
              [run](const Args& a) {
                  const Tensor& x = a.tensor(0);
                  return run(x, a.optInteger(1).value_or(implicitSoftmaxDim(x)), a.optDType(3));
              });
    }
}

}  // namespace eng::tensor
