# .grad accumulates over backward calls, backward(gradient) weights a non-scalar root; printed as PyTorch 2.11 prints.
# expect: False True True False True
# expect: tensor(14., grad_fn=<SumBackward0>)
# expect: tensor([2., 4., 6.], grad_fn=<MulBackward0>) tensor([2., 3., 4.], grad_fn=<AddBackward0>) tensor(2., grad_fn=<MeanBackward0>) tensor([0., 1., 2.], grad_fn=<SubBackward0>) tensor([0.5000, 1.0000, 1.5000], grad_fn=<DivBackward0>) tensor(0.7616, grad_fn=<SelectBackward0>) tensor(14., grad_fn=<DotBackward0>)
# expect: tensor([2., 4., 6.])
# expect: tensor([5., 7., 9.])
# expect: None
# expect: tensor([1., 4., 9.])
# expect: tensor([ 2.,  2., 12.])
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
print(y.grad_fn is None, x.grad_fn is None, x.is_leaf, y.is_leaf, y.requires_grad)
print(y)
print(x * 2, x + 1, x.mean(), x - 1, x / 2, torch.tanh(x)[0], x @ x)
y.backward()
print(x.grad)
z = (x * 3).sum()
z.backward()
print(x.grad)
x.grad = None
print(x.grad)
(x ** 3).mean().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = w * w
v.backward(torch.tensor([1.0, 0.5, 2.0]))
print(w.grad)
