// Registry entries for shape and view ops (view/reshape/permute/transpose/expand/squeeze/diagonal/as_strided/
// unfold/..., cat/stack/split/chunk, triu/tril) and the functional indexing ops (index_select, gather, nonzero,
// masked_select).
#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/indexing.h"
#include "tensor/iteration.h"
#include "tensor/registry_support.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

std::vector<std::string> both(const char* name) { return {fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)}; }
std::vector<std::string> method(const char* name) { return {fmt::format("Tensor.{}", name)}; }

}  // namespace

void registerShapeOps(OpRegistry& r) {
    r.def(method("view"), "view(Tensor self, int[] size)", [](const Args& a) { return Value(view(a.tensor(0), a.intList(1))); });
    r.def(method("view"), "view(Tensor self, ScalarType dtype)", [](const Args& a) { return Value(viewDtype(a.tensor(0), a[1].toDType())); });
    r.def(both("reshape"), "reshape(Tensor self, int[] shape)", [](const Args& a) { return Value(reshape(a.tensor(0), a.intList(1))); });
    r.def(method("view_as"), "view_as(Tensor self, Tensor other)", [](const Args& a) { return Value(view(a.tensor(0), a.tensor(1).sizes())); });
    r.def(method("reshape_as"), "reshape_as(Tensor self, Tensor other)",
          [](const Args& a) { return Value(reshape(a.tensor(0), a.tensor(1).sizes())); });
    r.def(both("permute"), "permute(Tensor self, int[] dims)", [](const Args& a) { return Value(permute(a.tensor(0), a.intList(1))); });
    for (const char* name : {"transpose", "swapaxes", "swapdims"})
        r.def(both(name), fmt::format("{}(Tensor self, int dim0, int dim1)", name),
              [](const Args& a) { return Value(transpose(a.tensor(0), a.integer(1), a.integer(2))); });
    r.def(both("t"), "t(Tensor self)", [](const Args& a) { return Value(t(a.tensor(0))); });
    r.def(both("adjoint"), "adjoint(Tensor self)", [](const Args& a) { return Value(transpose(a.tensor(0), -2, -1)); });
    r.def(both("unsqueeze"), "unsqueeze(Tensor self, int dim)", [](const Args& a) { return Value(unsqueeze(a.tensor(0), a.integer(1))); });
    r.def(method("unsqueeze_"), "unsqueeze_(Tensor self, int dim)", [](const Args& a) {
        const Tensor v = unsqueeze(a.tensor(0), a.integer(1));
        Tensor self = a.tensor(0);
        self.setGeometry(v.sizes(), v.strides(), v.storageOffset());
        return a[0];
    });
    r.def(both("squeeze"), "squeeze(Tensor self, int[1]? dim=None)", [](const Args& a) { return Value(squeeze(a.tensor(0), a.optIntList(1))); });
    r.def(method("squeeze_"), "squeeze_(Tensor self, int[1]? dim=None)", [](const Args& a) {
        const Tensor v = squeeze(a.tensor(0), a.optIntList(1));
        Tensor self = a.tensor(0);
        self.setGeometry(v.sizes(), v.strides(), v.storageOffset());
        return a[0];
    });
    r.def(method("expand"), "expand(Tensor self, int[] size, *, bool implicit=False)",
          [](const Args& a) { return Value(expand(a.tensor(0), a.intList(1))); });
    r.def(method("expand_as"), "expand_as(Tensor self, Tensor other)", [](const Args& a) { return Value(expand(a.tensor(0), a.tensor(1).sizes())); });
    r.def({"torch.broadcast_to", "Tensor.broadcast_to"}, "broadcast_to(Tensor self, int[] size)",
          [](const Args& a) { return Value(expand(a.tensor(0), a.intList(1))); });
    r.def(both("flatten"), "flatten(Tensor self, int start_dim=0, int end_dim=-1)",
          [](const Args& a) { return Value(flatten(a.tensor(0), a.integer(1), a.integer(2))); });
    r.def(both("ravel"), "ravel(Tensor self)", [](const Args& a) { return Value(reshape(a.tensor(0), {-1})); });
    r.def(both("unflatten"), "unflatten(Tensor self, int dim, int[] sizes)",
          [](const Args& a) { return Value(unflatten(a.tensor(0), a.integer(1), a.intList(2))); });
    for (const char* name : {"movedim", "moveaxis"})
        r.def(both(name), fmt::format("{}(Tensor self, int[1] source, int[1] destination)", name),
              [](const Args& a) { return Value(movedim(a.tensor(0), a.intList(1), a.intList(2))); });
    r.def(both("diagonal"), "diagonal(Tensor self, int offset=0, int dim1=0, int dim2=1)",
          [](const Args& a) { return Value(diagonal(a.tensor(0), a.integer(1), a.integer(2), a.integer(3))); });
    r.def(both("as_strided"), "as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None)",
          [](const Args& a) { return Value(asStrided(a.tensor(0), a.intList(1), a.intList(2), a.optInteger(3))); });
    r.def(method("unfold"), "unfold(Tensor self, int dimension, int size, int step)",
          [](const Args& a) { return Value(unfold(a.tensor(0), a.integer(1), a.integer(2), a.integer(3))); });
    r.def(both("narrow"), "narrow(Tensor self, int dim, int start, int length)",
          [](const Args& a) { return Value(narrow(a.tensor(0), a.integer(1), a.integer(2), a.integer(3))); });
    r.def(both("select"), "select(Tensor self, int dim, int index)",
          [](const Args& a) { return Value(select(a.tensor(0), a.integer(1), a.integer(2))); });
    r.def(both("unbind"), "unbind(Tensor self, int dim=0)", [](const Args& a) { return tupleOf(unbind(a.tensor(0), a.integer(1))); });
    for (const char* name : {"cat", "concat", "concatenate"})
        r.def({fmt::format("torch.{}", name)}, fmt::format("{}(Tensor[] tensors, int dim=0)", name),
              [](const Args& a) { return Value(cat(a.tensorList(0), a.integer(1))); });
    r.def({"torch.broadcast_tensors"}, "broadcast_tensors(Tensor[] *tensors)", [](const Args& a) {
        const std::vector<Tensor> ts = a.tensorList(0);
        Shape shape;
        for (const Tensor& t : ts) shape = broadcastShapes(shape, t.sizes());
        std::vector<Tensor> expanded;
        for (const Tensor& t : ts) expanded.push_back(expandTo(t, shape));
        return tupleOf(expanded);
    });
    r.def({"torch.stack"}, "stack(Tensor[] tensors, int dim=0)", [](const Args& a) { return Value(stack(a.tensorList(0), a.integer(1))); });
    r.def({"torch.hstack"}, "hstack(Tensor[] tensors)", [](const Args& a) {
        const std::vector<Tensor> ts = a.tensorList(0);
        return Value(cat(ts, ts.front().dim() == 1 ? 0 : 1));
    });
    r.def({"torch.vstack"}, "vstack(Tensor[] tensors)", [](const Args& a) {
        std::vector<Tensor> ts = a.tensorList(0);
        for (Tensor& t : ts)
            if (t.dim() < 2) t = reshape(t, {1, -1});
        return Value(cat(ts, 0));
    });
    r.def(both("split"), "split(Tensor self, int split_size, int dim=0)",
          [](const Args& a) { return tupleOf(split(a.tensor(0), a.integer(1), a.integer(2))); });
    r.def(both("split"), "split(Tensor self, int[] split_size, int dim=0)",
          [](const Args& a) { return tupleOf(splitWithSizes(a.tensor(0), a.intList(1), a.integer(2))); });
    r.def(both("split_with_sizes"), "split_with_sizes(Tensor self, int[] split_sizes, int dim=0)",
          [](const Args& a) { return tupleOf(splitWithSizes(a.tensor(0), a.intList(1), a.integer(2))); });
    r.def(both("chunk"), "chunk(Tensor self, int chunks, int dim=0)",
          [](const Args& a) { return tupleOf(chunk(a.tensor(0), a.integer(1), a.integer(2))); });
    r.def(both("triu"), "triu(Tensor self, int diagonal=0)", [](const Args& a) { return Value(triu(a.tensor(0), a.integer(1))); });
    r.def(both("tril"), "tril(Tensor self, int diagonal=0)", [](const Args& a) { return Value(tril(a.tensor(0), a.integer(1))); });
    r.def(method("triu_"), "triu_(Tensor self, int diagonal=0)",
          [](const Args& a) { return Value(copyInto(a.tensor(0), triu(a.tensor(0), a.integer(1)))); });
    r.def(method("tril_"), "tril_(Tensor self, int diagonal=0)",
          [](const Args& a) { return Value(copyInto(a.tensor(0), tril(a.tensor(0), a.integer(1)))); });
    r.def(method("repeat"), "repeat(Tensor self, int[] repeats)", [](const Args& a) { return Value(repeat(a.tensor(0), a.intList(1))); });
    r.def(both("flip"), "flip(Tensor self, int[] dims)", [](const Args& a) { return Value(flip(a.tensor(0), a.intList(1))); });

    r.def(both("index_select"), "index_select(Tensor self, int dim, Tensor index)",
          [](const Args& a) { return Value(indexSelect(a.tensor(0), a.integer(1), a.tensor(2))); });
    r.def(both("gather"), "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False)",
          [](const Args& a) { return Value(gather(a.tensor(0), a.integer(1), a.tensor(2))); });
    r.def(both("nonzero"), "nonzero(Tensor self, *, bool as_tuple=False)", [](const Args& a) {
        const Tensor coordinates = nonzero(a.tensor(0));
        if (!a.boolean(1)) return Value(coordinates);
        std::vector<Tensor> perDim;
        for (int64_t d = 0; d < coordinates.size(1); ++d) perDim.push_back(select(coordinates, 1, d));
        return tupleOf(perDim);
    });
    r.def(both("masked_select"), "masked_select(Tensor self, Tensor mask)",
          [](const Args& a) { return Value(maskedSelect(a.tensor(0), a.tensor(1))); });
    r.def({"Tensor.index_put_"}, "index_put_(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False)", [](const Args& a) {
        indexPut(a.tensor(0), a.tensorList(1), a.tensor(2), a.boolean(3));
        return a[0];
    });
    // The functional form (a copy written), as AOT Autograd's graphs call it: embedding's backward scatters rows so.
    r.def(both("index_put"), "index_put(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False)", [](const Args& a) {
        const Tensor out = clone(a.tensor(0));
        indexPut(out, a.tensorList(1), a.tensor(2), a.boolean(3));
        return Value(out);
    });
}

}  // namespace eng::tensor
