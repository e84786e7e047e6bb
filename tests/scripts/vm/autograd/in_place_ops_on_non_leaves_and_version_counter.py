# In-place ops on non-leaf tensors keep their history; the version counter catches a saved tensor changed in place.
# expect: tensor([2., 8.], grad_fn=<SubBackward0>)
# expect: tensor([4., 8.])
# expect: True False
# expect: tensor([4., 6.])
# expect: tensor([[1., 0.],
# expect:         [1., 1.]])
# expect: tensor([2., 0., 2.])
# expect: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
# expect: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
# expect: RuntimeError: derivative for aten::floor_divide is not implemented
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 2
h.add_(1)
h.mul_(x)
h -= x
print(h)
h.sum().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
out = torch.zeros(3)
out[1:] = w * 2
print(out.requires_grad, out.is_leaf)
(out * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(w.grad)
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = a * 1
b[0, 1] = 0.0
b.sum().backward()
print(a.grad)
p = torch.tensor([0.5, -0.5, 2.0], requires_grad=True)
q = p * 2
q.relu_()
q.sum().backward()
print(p.grad)
r = torch.tensor([1.0, 2.0], requires_grad=True)
s = r * 1
t = s * s
s.add_(1)
try:
    t.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
e = r.exp()
e.add_(1)
try:
    e.sum().backward()
    print(r.grad)
except RuntimeError as err:
    print("RuntimeError:", err)
u = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    (u // 2).sum().backward()
except RuntimeError as err:
    print("RuntimeError:", err)
