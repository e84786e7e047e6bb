# torch.vmap / torch.func.vmap map a function over a batch dimension, eagerly and under torch.compile (inlined into
# one graph each, fullgraph): in_dims per argument (None: not mapped), out_dims per output, tuple outputs, and an
# in-place method over the batch gives back its input itself, as functorch does.
# expect: [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
# expect: [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]] [0.0, 3.0, 6.0]
# expect: True [0.0, 0.0, 0.0, 0.0]
# expect: [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
# expect: [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]] [0.0, 3.0, 6.0]
# expect: True [0.0, 0.0, 0.0, 0.0]
# expect error: ValueError: vmap: Expected all tensors to have the same size in the mapped dimension
# expect graph_breaks: 0
# expect unique_graphs: 3
import torch


def double(x):
    return x * 2


def pair(a, b):
    return a + b, (a * b).sum()


def batched_double(x):
    return torch.vmap(double)(x)


def batched_pair(a, b):
    return torch.func.vmap(pair, in_dims=(0, None), out_dims=(1, 0))(a, b)


def acos_in_place(x):
    y = torch.vmap(torch.Tensor.acos_)(x)
    return y is x


def run(dub, pr, acos):
    x = torch.arange(6, dtype=torch.float32).reshape(3, 2)
    print(dub(x).tolist())
    s, p = pr(torch.arange(3, dtype=torch.float32), torch.tensor([1.0, 2.0]))
    print(s.tolist(), p.tolist())
    z = torch.ones(4, 1)
    print(acos(z), z.flatten().tolist())


run(batched_double, batched_pair, acos_in_place)
c = torch.compile(backend="eager", fullgraph=True)
run(c(batched_double), c(batched_pair), c(acos_in_place))
torch.vmap(pair)(torch.ones(3), torch.ones(2))
