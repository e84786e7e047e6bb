# A `with torch.no_grad():` block stays in the graph as _set_grad_enabled nodes around its ops (Dynamo's
# GradModeVariable): no break, and the grad mode is restored after the call.
# expect: 18.0 False True True
# expect graph_breaks: 0
# expect unique_graphs: 1
# expect graph_code:
# def forward(self, L_x_ : torch.Tensor):
#     l_x_ = L_x_
#     y = l_x_ * 2.0;  l_x_ = None
#     _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None
#     z = y + 1.0;  y = None
#     _set_grad_enabled_1 = torch._C._set_grad_enabled(True);  _set_grad_enabled_1 = None
#     mul_1 = z * 3.0;  z = None
#     return (mul_1,)
import torch


@torch.compile
def f(x):
    y = x * 2.0
    with torch.no_grad():
        z = y + 1.0
    return z * 3.0, z.requires_grad, torch.is_grad_enabled()


x = torch.ones(2, requires_grad=True)
out, inside, after = f(x)
print(out.sum().item(), inside, after, torch.is_grad_enabled())
