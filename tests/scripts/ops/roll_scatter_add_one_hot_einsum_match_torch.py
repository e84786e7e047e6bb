# torch.roll (one dim, flattened, several dims), scatter_add (src larger than index; its gradient), F.one_hot (num
# classes inferred) and torch.einsum (explicit and implicit output, a contraction's gradient), eager and compiled.
# Values worked out by hand from PyTorch's definitions.
# expect: [[3.0, 1.0, 2.0], [6.0, 4.0, 5.0]] [[2.0, 3.0, 4.0], [5.0, 6.0, 1.0]] [[6.0, 4.0, 5.0], [3.0, 1.0, 2.0]]
# expect: [[3.0, 0.0, 0.0], [0.0, 5.0, 4.0]]
# expect: [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
# expect: [[0, 0, 1], [1, 0, 0]]
# expect: [[14.0, 32.0], [32.0, 77.0]] 21.0 [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
# expect: 11.0 [3.0, 4.0]
# expect: True
import torch
import torch.nn.functional as F

x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
print(torch.roll(x, 1, dims=1).tolist(), torch.roll(x, -1).tolist(), x.roll((1, 1), dims=(0, 1)).tolist())
index = torch.tensor([[0, 0], [2, 1]])
src = x.clone().requires_grad_()
out = torch.zeros(2, 3).scatter_add(1, index, src)
print(out.tolist())
out.sum().backward()
print(src.grad.tolist())
print(F.one_hot(torch.tensor([2, 0])).tolist())
print(torch.einsum("ij,jk->ik", x, x.T).tolist(), torch.einsum("ij->", x).item(), torch.einsum("ji", x).tolist())
a = torch.tensor([1., 2.], requires_grad=True)
dot = torch.einsum("i,i->", a, torch.tensor([3., 4.]))
dot.backward()
print(dot.item(), a.grad.tolist())


def ops(t, idx):
    return (t.roll(1, dims=0), torch.zeros(2, 3).scatter_add(1, idx, t), F.one_hot(idx[:, 0], num_classes=4),
            torch.einsum("ij,kj->ik", t, t))


compiled = torch.compile(ops)(x, index)
print(all(torch.equal(c, e) for c, e in zip(compiled, ops(x, index))))
