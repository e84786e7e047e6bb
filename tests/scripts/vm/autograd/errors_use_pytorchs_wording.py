# Autograd errors in PyTorch 2.11's wording (backward of a non-scalar, of a tensor without grad_fn, twice; in-place on leaves).
# expect: RuntimeError: grad can be implicitly created only for scalar outputs
# expect: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# expect: RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
# expect: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# expect: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# expect: tensor([5., 3.], requires_grad=True)
# expect: tensor([4., 4.])
# expect: tensor([6., 6.])
# expect: RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([2]).
# expect: RuntimeError: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the gradient and the tensor are the same size
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    (x * x).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([1.0]).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x[0] = 5.0
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    x.add_(1)
    x[0] = 5.0
print(x)
x.grad = None
s = (x * 2).sum()
s.backward(retain_graph=True)
s.backward()
print(x.grad)
a = (x + 1).sum()
a.backward()
a.backward()
print(x.grad)
try:
    (x * x).backward(torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.grad = torch.ones(3)
except RuntimeError as e:
    print("RuntimeError:", e)
