// Composite ops that move or combine elements by index: torch.roll (narrow and cat), scatter_add (index_put with
// accumulate), take_along_dim (gather of broadcast operands), F.one_hot (a comparison with arange) and torch.einsum
// (broadcast products summed over the contracted letters). Their parts record their own derivatives.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "tensor/registry_composite.h"
#include "tensor/registry_support.h"

namespace eng::tensor::composite {

namespace {

Tensor roll(Tensor x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
    if (dims.empty()) {
        if (shifts.size() != 1) fail(ErrorKind::Runtime, fmt::format("shifts and dimensions must align. shifts: {}, dims:0", shifts.size()));
        const Shape shape = x.sizes();
        return top("Tensor.reshape", {roll(top("Tensor.flatten", {x}), shifts, {0}), ints(shape)});
    }
    if (shifts.size() != dims.size())
        fail(ErrorKind::Runtime, fmt::format("shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(), dims.size()));
    for (size_t i = 0; i < dims.size(); ++i) {
        const int64_t n = x.size(dims[i]);
        if (n == 0) continue;
        const int64_t s = ((shifts[i] % n) + n) % n;
        if (s == 0) continue;
        x = top("torch.cat", {Value::list({Value(top("torch.narrow", {x, dims[i], n - s, s})), Value(top("torch.narrow", {x, dims[i], 0, n - s}))}), dims[i]});
    }
    return x;
}

/// The index tensors that address, for every position of `index`, self[..., index[pos] at dim, ...].
Value scatterIndices(const Tensor& index, int64_t dim) {
    ValueList indices;
    for (int64_t k = 0; k < index.dim(); ++k) {
        if (k == dim) {
            indices.emplace_back(index);
            continue;
        }
        Shape shape(static_cast<size_t>(index.dim()), 1);
        shape[static_cast<size_t>(k)] = index.size(k);
        const Tensor positions = top("torch.arange", {index.size(k)}, {{"device", Value(index.device())}});
        indices.emplace_back(top("Tensor.reshape", {positions, ints(shape)}));
    }
    return Value::list(std::move(indices));
}

Value scatterAdd(const Args& a, bool inPlace) {
    const Tensor& self = a.tensor(0);
    const Tensor& index = a.tensor(2);
    const Tensor& src = a.tensor(3);
    const int64_t rank = std::max<int64_t>(self.dim(), 1);
    const int64_t dim = a.integer(1) < 0 ? a.integer(1) + rank : a.integer(1);
    if (index.dim() != self.dim() || src.dim() != self.dim())
        fail(ErrorKind::Runtime, "Index tensor must have the same number of dimensions as self tensor");
    Tensor values = src;
    for (int64_t k = 0; k < index.dim(); ++k)
        if (src.size(k) != index.size(k)) values = top("torch.narrow", {values, k, 0, index.size(k)});
    return op(inPlace ? "Tensor.index_put_" : "torch.index_put", {self, scatterIndices(index, dim), values, true});
}

/// torch.take_along_dim: gather along `dim` after broadcasting self and indices over the other dims; without a
/// dim, of both flattened.
Tensor takeAlongDim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
    if (!dim) return top("torch.gather", {top("Tensor.flatten", {self}), 0, top("Tensor.flatten", {indices})});
    if (self.dim() != indices.dim())
        fail(ErrorKind::Runtime, fmt::format("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                                             "but got {} dimensions for input, and {} dimensions for indices",
                                             self.dim(), indices.dim()));
    const int64_t rank = std::max<int64_t>(self.dim(), 1);
    const int64_t d = *dim < 0 ? *dim + rank : *dim;
    Shape selfShape = self.sizes(), indexShape = indices.sizes();
    for (size_t k = 0; k < selfShape.size(); ++k) {
        if (static_cast<int64_t>(k) == d) continue;
        const int64_t a = selfShape[k], b = indexShape[k];
        if (a != b && a != 1 && b != 1)
            fail(ErrorKind::Runtime, fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}", a, b, k));
        selfShape[k] = indexShape[k] = a == 1 ? b : a;
    }
    return top("torch.gather", {top("Tensor.expand", {self, ints(selfShape)}), d, top("Tensor.expand", {indices, ints(indexShape)})});
}

Tensor oneHot(const Tensor& x, int64_t classes) {
    if (x.dtype() != DType::Int64) fail(ErrorKind::Runtime, "one_hot is only applicable to index tensor of type LongTensor.");
    if (classes < 0) classes = x.numel() == 0 ? 0 : op("Tensor.item", {top("torch.amax", {x})}).toInt() + 1;
    const Tensor classIds = top("torch.arange", {classes}, {{"device", Value(x.device())}});
    return top("Tensor.to", {top("torch.eq", {top("Tensor.unsqueeze", {x, -1}), classIds}), Value(DType::Int64)});
}

/// einsum as one broadcast product: every operand permuted to the order (output letters, contracted letters) with
/// size-1 dims for the letters it lacks, multiplied, and summed over the contracted letters.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
    std::string spec;
    for (char c : equation)
        if (c != ' ') spec += c;
    if (spec.find('.') != std::string::npos) fail(ErrorKind::NotImplemented, "einsum with '...' is not supported by cwb");
    const size_t arrow = spec.find("->");
    const std::string inputs = spec.substr(0, arrow);
    std::vector<std::string> terms;
    for (size_t start = 0;;) {
        const size_t comma = inputs.find(',', start);
        terms.push_back(inputs.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (terms.size() != operands.size()) fail(ErrorKind::Runtime, "einsum(): more operands were provided than specified in the equation");
    std::string output;
    if (arrow != std::string::npos) {
        output = spec.substr(arrow + 2);
    } else {  // implicit output: the letters used once, in alphabetical order
        for (char c = 'A'; c <= 'z'; ++c)
            if (std::count(inputs.begin(), inputs.end(), c) == 1) output += c;
    }
    std::string letters = output;
    for (const std::string& term : terms)
        for (char c : term)
            if (letters.find(c) == std::string::npos) letters += c;
    Tensor product;
    for (size_t i = 0; i < terms.size(); ++i) {
        const std::string& term = terms[i];
        if (static_cast<int64_t>(term.size()) != operands[i].dim())
            fail(ErrorKind::Runtime, fmt::format("einsum(): the number of subscripts in the equation ({}) does not match the number of dimensions ({}) "
                                                 "for operand {} and no ellipsis was given",
                                                 term.size(), operands[i].dim(), i));
        std::vector<int64_t> order;
        Shape shape;
        for (char c : letters) {
            const size_t at = term.find(c);
            if (at != std::string::npos && term.find(c, at + 1) != std::string::npos)
                fail(ErrorKind::NotImplemented, "einsum with a repeated subscript in one operand is not supported by cwb");
            if (at != std::string::npos) order.push_back(static_cast<int64_t>(at));
            shape.push_back(at == std::string::npos ? 1 : operands[i].size(static_cast<int64_t>(at)));
        }
        const Tensor aligned = top("Tensor.reshape", {top("Tensor.permute", {operands[i], ints(order)}), ints(shape)});
        product = product.defined() ? top("torch.mul", {product, aligned}) : aligned;
    }
    std::vector<int64_t> contracted;
    for (size_t d = output.size(); d < letters.size(); ++d) contracted.push_back(static_cast<int64_t>(d));
    if (!contracted.empty()) product = top("torch.sum", {product, ints(contracted)});
    return product;
}

}  // namespace

void registerIndexComposites(CompositeRegistry& r) {
    r.def({"torch.roll", "Tensor.roll"}, "roll(Tensor self, int[1] shifts, int[1] dims=[])",
          [](const Args& a) { return Value(roll(a.tensor(0), a.intList(1), a.intList(2))); });
    r.def({"torch.scatter_add", "Tensor.scatter_add"}, "scatter_add(Tensor self, int dim, Tensor index, Tensor src)",
          [](const Args& a) { return scatterAdd(a, false); });
    r.def({"Tensor.scatter_add_"}, "scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src)", [](const Args& a) { return scatterAdd(a, true); });
    r.def({"torch.take_along_dim", "Tensor.take_along_dim"}, "take_along_dim(Tensor self, Tensor indices, int? dim=None)",
          [](const Args& a) { return Value(takeAlongDim(a.tensor(0), a.tensor(1), a.optInteger(2))); });
    r.def({"F.one_hot", "torch._C._nn.one_hot"}, "one_hot(Tensor self, int num_classes=-1)",
          [](const Args& a) { return Value(oneHot(a.tensor(0), a.integer(1))); });
    r.def({"torch.einsum"}, "einsum(str equation, Tensor[] *operands)", [](const Args& a) { return Value(einsum(a.str(0), a.tensorList(1))); });
}

}  // namespace eng::tensor::composite
