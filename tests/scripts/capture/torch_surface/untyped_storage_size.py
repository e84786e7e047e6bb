# Tensor.untyped_storage() of a tensor passed in: its byte size folds at trace time (a view reports its base's
# storage), as Dynamo's UntypedStorageVariable.size() folds; one graph, no break. FSDP's _same_storage_size too,
# imported inside the compiled function.
# expect: 24 24 12 4
# expect: [1.0, 2.0, 3.0] [-1.0, 0.0, 1.0]
# expect unique_graphs: 1
# expect graph_breaks: 0
import torch

x = torch.arange(6, dtype=torch.float32)
view = x[:3]
print(x.untyped_storage().size(), view.untyped_storage().nbytes(), torch.ones(3, dtype=torch.int32).untyped_storage().size(),
      x.element_size())


@torch.compile(backend="eager")
def f(a, b):
    import torch.distributed.fsdp._flat_param as flat_param

    whole = a.untyped_storage().size() // a.element_size()
    if flat_param._same_storage_size(a, 6):
        a = a + 1
    return a[:3] * (whole // 6), b - 1


r = f(view, view)
print(r[0].tolist(), r[1].tolist())
