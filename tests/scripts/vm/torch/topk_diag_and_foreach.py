# torch.topk (values and indices, largest or smallest, any dim, gradients to the picked entries), torch.diag (a
# vector to a matrix with an offset, a matrix to its diagonal) and the torch._foreach_* ops (per-element results,
# scalar lists, a scalar base, in-place forms that return None, norms).
# expect: [[5.0, 3.0], [6.0, 4.0]] [[1, 2], [2, 0]]
# expect: [[1.0, 2.0, 3.0]] [[0, 1, 0]]
# expect: [1.0, 0.0, 1.0]
# expect: RuntimeError selected index k out of range
# expect: [[1.0, 0.0], [0.0, 2.0]] [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]] [1.0, 2.0] [4.0]
# expect: [[2.0, 3.0], [4.0]] [[2.0, 4.0], [9.0]] [[2.0, 4.0], [8.0]]
# expect: None [[3.0, 6.0], [9.0]] [6.7082, 9.0]
import torch

x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
top = torch.topk(x, 2)
print(top.values.tolist(), top.indices.tolist())
values, indices = x.topk(1, dim=0, largest=False)
print(values.tolist(), indices.tolist())
y = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
y.topk(2).values.sum().backward()
print(y.grad.tolist())
try:
    torch.topk(x, 4)
except RuntimeError as e:
    print("RuntimeError", e)
v = torch.tensor([1.0, 2.0])
print(torch.diag(v).tolist(), torch.diag(v, 1).tolist(), torch.diag(x).tolist(), x.diag(-1).tolist())
a = [torch.tensor([1.0, 2.0]), torch.tensor([3.0])]
print([t.tolist() for t in torch._foreach_add(a, 1.0)], [t.tolist() for t in torch._foreach_mul(a, [2.0, 3.0])],
      [t.tolist() for t in torch._foreach_pow(2.0, a)])
print(torch._foreach_add_(a, a, alpha=2), [t.tolist() for t in a], [round(t.item(), 4) for t in torch._foreach_norm(a)])
