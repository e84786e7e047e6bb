# torch._foreach_pow with a 0-d base tensor broadcast over a list (list outputs are graph outputs), topk, diag and
# torch.finfo / torch.iinfo (folded at trace time) compile to one graph each and equal eager.
# expect: [8.0, 1.4142] [8.0, 1.4142]
# expect: [[5.0, 3.0], [6.0, 4.0]] [[1, 2], [2, 0]] True
# expect: [8319008.0, -127.0] False
# expect unique_graphs: 3
# expect graph_breaks: 0
import torch


def pow_all(x, ys):
    return torch._foreach_pow(x, ys)


def top_two(x):
    values, indices = torch.topk(x, 2)
    return values, indices, torch.diag(x[:, :2])


def clamp_to_half(x):
    info = torch.finfo(torch.float16)
    return x.clamp(min=info.min, max=info.max) * torch.iinfo(torch.int8).max, torch.compiler.is_exporting()


base, exponents = torch.tensor(2.0), [torch.tensor(3.0), torch.tensor(0.5)]
print([round(t.item(), 4) for t in pow_all(base, exponents)],
      [round(t.item(), 4) for t in torch.compile(pow_all, backend="eager", fullgraph=True)(base, exponents)])
x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
values, indices, diagonal = torch.compile(top_two, fullgraph=True)(x)
print(values.tolist(), indices.tolist(), torch.equal(diagonal, top_two(x)[2]))
out, exporting = torch.compile(clamp_to_half, fullgraph=True)(torch.tensor([1e6, -1.0]))
print(out.tolist(), exporting)
