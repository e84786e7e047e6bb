# no_grad / enable_grad nesting, detach, clone and retain_grad, as PyTorch 2.11 prints them.
# expect: False
# expect: False True True True
# expect: False True
# expect: True False
# expect: tensor([1., 1.])
# expect: False
# expect: tensor([  6., -12.]) tensor([ 19., -35.]) True False
# expect: False True
# expect: True
# expect: RuntimeError: only Tensors of floating point and complex dtype can require gradients
# expect: RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().
import torch
x = torch.tensor([1.0, -2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    with torch.enable_grad():
        w = x * 2
    print(torch.is_grad_enabled())
print(y.requires_grad, w.requires_grad, torch.is_grad_enabled(), y.grad_fn is None)
d = x.detach()
print(d.requires_grad, d.is_leaf)
c = x.clone()
print(c.requires_grad, c.is_leaf)
c.sum().backward()
print(x.grad)

@torch.no_grad()
def doubled(t):
    return t * 2

print(doubled(x).requires_grad)
h = x * 3
h.retain_grad()
out = (h * h).sum()
out.backward()
print(h.grad, x.grad, h.retains_grad, x.retains_grad)
t = torch.ones(2)
print(t.requires_grad, t.is_leaf)
t.requires_grad_()
print(t.requires_grad)
i = torch.tensor([1, 2])
try:
    i.requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    h.requires_grad = False
except RuntimeError as e:
    print("RuntimeError:", e)
