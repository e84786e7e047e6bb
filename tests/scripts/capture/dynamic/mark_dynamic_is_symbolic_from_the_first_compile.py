# torch._dynamo.mark_dynamic makes a dimension symbolic in the first compile, so another size of it reuses the graph
# (without the mark, the second size recompiles); maybe_mark_dynamic and mark_static_address accept the same tensors.
# expect: [2.0, 2.0, 2.0] [2.0, 2.0, 2.0]
# expect unique_graphs: 1
# expect recompiles: 0
# expect graph: "f32[s0, 3][3, 1]cpu"
import torch


@torch.compile(backend="eager")
def f(x):
    return x.sum(0) / x.size(0) * 2


x = torch.ones(4, 3)
torch._dynamo.mark_dynamic(x, 0)
torch._dynamo.maybe_mark_dynamic(x, 0)
torch._dynamo.mark_static_address(x)
print(f(x).tolist(), f(torch.ones(6, 3)).tolist())
