# torch.autograd.grad inside a compiled function: Dynamo marks it skipped (trace_rules: SkipFunctionVariable), so
# the graph breaks there with its reason and the call runs eagerly; the gradients equal eager's and no .grad is
# touched. create_graph=True (higher-order gradients) is not supported by the cwb autograd: it raises.
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
# expect error: grad(create_graph=True): higher-order gradients are not supported by the cwb autograd
torch.autograd.grad(y, x, create_graph=True)
