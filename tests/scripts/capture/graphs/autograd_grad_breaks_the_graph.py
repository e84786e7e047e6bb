# torch.autograd.grad inside a compiled function: Dynamo marks it skipped (trace_rules: SkipFunctionVariable), so
# the graph breaks there with its reason and the call runs eagerly; the gradients equal eager's and no .grad is
# touched. With create_graph=True the gradient has history: d/dx of sum(2x) is 2.
import torch

torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
w = torch.randn(5, requires_grad=True)

def f(x, w):
    y = (x * w).sin().sum()
    gx, gw = torch.autograd.grad(y, (x, w))
    return gx * 2, gw

gx, gw = torch.compile(f)(x, w)
# expect: True True True
print(torch.allclose(gx, 2 * w * (x * w).cos()), torch.allclose(gw, x * (x * w).cos()), x.grad is None)
z = (x * x).sum()
unused = torch.randn(2, requires_grad=True)
# expect: True None
g, none = torch.autograd.grad(z, [x, unused], allow_unused=True)
print(torch.allclose(g, 2 * x), none)
# expect graph_breaks: 1
# expect log: Attempted to call function marked as skipped
# expect log: module: torch.autograd, qualname: grad, skip reason: <missing reason>
y = (x * x).sum()
# expect: True
h, = torch.autograd.grad(y, x, create_graph=True)
print(torch.equal(torch.autograd.grad(h.sum(), x)[0], torch.full_like(x, 2.0)))
