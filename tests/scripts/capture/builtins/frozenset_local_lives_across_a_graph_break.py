# A frozenset made in the compiled frame is a constant Dynamo folds: it lives across a graph break as a local of the
# resumed frame (guarded by its value) and looks up a dict from outside the frame, whose tensor is a graph input.
# expect: [0.0, 3.0, 6.0]
# expect: [1.5, 4.5, 7.5]
# expect graph_breaks: 1
# expect unique_graphs: 1
# expect recompiles: 0
import torch

table = {frozenset(): torch.tensor([0.0, 1.0, 2.0])}


@torch.compile(backend="eager")
def scaled(x):
    k = frozenset()
    torch._dynamo.graph_break()
    return table[k] * x


print(scaled(torch.tensor(3.0)).tolist())
table[frozenset()] = torch.tensor([0.5, 1.5, 2.5])
print(scaled(torch.tensor(3.0)).tolist())
