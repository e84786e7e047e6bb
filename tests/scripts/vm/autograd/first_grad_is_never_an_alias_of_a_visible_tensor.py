# A leaf's first .grad is the incoming gradient itself only when nothing else can see it (PyTorch's AccumulateGrad):
# a gradient the caller passed, one shared by two leaves, or a retained one stays a separate copy.
# expect: tensor([2., 2.]) tensor([1., 1.])
# expect: tensor([1., 2., 3.])
# expect: tensor([5., 6.])
# expect: tensor([2., 2.]) tensor([5., 5.]) tensor([5., 5.])
# expect: tensor([18., 36.]) tensor([106., 112.])
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
(a + b).sum().backward()
a.grad.add_(1)
print(a.grad, b.grad)

x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
g = torch.tensor([1.0, 2.0, 3.0])
x.backward(g)
g.add_(10)
print(x.grad)

a2 = torch.tensor([1.0, 1.0], requires_grad=True)
g2 = torch.tensor([5.0, 6.0])
a2.clone().backward(g2)
g2.mul_(0)
print(a2.grad)

x3 = torch.tensor([1.0, 1.0], requires_grad=True)
(x3 * 2).backward(torch.tensor([1.0, 1.0]))
first = x3.grad
print(first.clone(), end=" ")
(x3 * 3).backward(torch.tensor([1.0, 1.0]))
print(x3.grad, first)  # the second backward adds into the first .grad in place

x4 = torch.tensor([1.0, 2.0], requires_grad=True)
h = x4 * 3
h.retain_grad()
(h * h).sum().backward()
h.grad.add_(100)
print(x4.grad, h.grad)
