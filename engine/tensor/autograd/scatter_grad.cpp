// Out-of-place scatters of gradients (scatter_grad.h).
#include "tensor/autograd/scatter_grad.h"

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/op_recorder.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

Tensor indexPutCopy(const Tensor& base, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
    auto compute = [&] {
        Tensor out = clone(base);
        indexPut(out, indices, values, accumulate);
        return out;
    };
    if (!structuralOpsRecorded()) return compute();
    return recordedOp(
        "torch.index_put",
        [&] {
            ValueList items(indices.begin(), indices.end());
            return RecordedCall{{Value(base), Value::list(std::move(items)), Value(values), Value(accumulate)}, {}};
        },
        compute);
}

Tensor scatterToPositions(const Shape& shape, DType dtype, const Tensor& grad, const std::function<Tensor(const Tensor& positions)>& choose) {
    const Tensor positions =
        to(reshape(arange(Scalar(shapeNumel(shape)), TensorOptions{DType::Int64, kCpu, false}), shape), std::nullopt, grad.device());
    const Tensor chosen = reshape(choose(positions), {-1});
    const Tensor flat = to(zeros({shapeNumel(shape)}, TensorOptions{dtype, kCpu, false}), std::nullopt, grad.device());
    if (!structuralOpsRecorded()) {
        indexPut(flat, {chosen}, reshape(grad, {-1}), true);  // the zeros are ours: no copy
        return reshape(flat, shape);
    }
    return reshape(indexPutCopy(flat, {chosen}, reshape(grad, {-1}), true), shape);
}

}  // namespace eng::tensor::autograd
