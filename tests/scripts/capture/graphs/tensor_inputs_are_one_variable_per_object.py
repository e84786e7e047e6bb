# Two tensor arguments are told apart by identity under Dynamo's guards: distinct objects compile with `a is b`
# False under NO_TENSOR_ALIASING; one object passed twice fails that guard, recompiles, and is one graph input
# (DUPLICATE_INPUT), so an in-place update through one name is seen through the other.
# expect: [2.0, 2.0] [1.0, 1.0] False
# expect: [4.0, 4.0] [2.0, 2.0] True
# expect: [2.0, 2.0] [1.0, 1.0] False
# expect graph_breaks: 0
# expect unique_graphs: 2
# expect recompiles: 1
# expect log: Duplicate tensors found: ["a", "b"]
import torch


@torch.compile(backend="eager")
def f(a, b):
    a.add_(1)
    same = a is b
    return b + 2 if same else a * 2, same


x = torch.zeros(2)
out, same = f(x, torch.ones(2))
print(out.tolist(), x.tolist(), same)
out, same = f(x, x)
print(out.tolist(), x.tolist(), same)
y = torch.zeros(2)
out, same = f(y, torch.ones(2))
print(out.tolist(), y.tolist(), same)
