# retain_grad() follows the tensor through an in-place op: h.grad is d/dh of sum(h * h) = 2 h, h = 2x + 1.
# expect: tensor([ 6., 10.]) tensor([12., 20.])
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 2
h.retain_grad()
h.add_(1)
(h * h).sum().backward()
print(h.grad, x.grad)
