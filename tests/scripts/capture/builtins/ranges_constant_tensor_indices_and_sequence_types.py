# torch.tensor(range(n)) is a tensor of those ints, a list indexed by a tensor made of constants indexes like
# its int, and a tuple passed where a list was traced (same length) recompiles instead of reusing the list's graph.
# expect: [0, 1, 2] [3.0, 3.0]
# expect: list tuple
# expect graph_breaks: 0
# expect unique_graphs: 1
# expect recompiles: 1
import torch


@torch.compile(backend="eager")
def pick(a):
    items = [a, a + 1, a + 2, a + 3]
    return torch.tensor(range(a.size(0) + 1)), items[torch.as_tensor(3)]


@torch.compile(backend="eager")
def kind(x, arg):
    return x, "list" if isinstance(arg, list) else "tuple"


ints, item = pick(torch.zeros(2))
print(ints.tolist(), item.tolist())
print(kind(torch.zeros(1), [1, 2])[1], kind(torch.zeros(1), (1, 2))[1])
