# freezing=True under torch.no_grad(): parameters and buffers are constants of the graph, and what is computed from
# them alone (a weight's transpose, a scaled buffer) is folded once at compile time; the output equals eager. With
# grad mode on (training) the call recompiles (Dynamo's GLOBAL_STATE guard: grad_mode), nothing is frozen, as in
# PyTorch, and the gradient flows to the parameters.
# expect: True
# expect: True
# expect: True
# expect: True
# expect recompiles: 1
# expect log: GLOBAL_STATE changed: grad_mode
# expect code: freezing: parameters and buffers are constants of this graph: arg0_1 (l_self_parameters_weight_), arg2_1 (l_self_buffers_scale_)
# expect code: buf0 = _frozen_buf0  # t(l_self_parameters_weight_), folded at compile time
# expect code_count 1: freezing: buf3 = sum(mul) folded at compile time
# expect code_count 1: freezing: buf4 = sum(l_self_parameters_weight_) folded at compile time
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(6, 5))
        self.register_buffer("scale", torch.arange(5.0))

    def forward(self, x):
        return torch.relu(x @ self.weight.t() + 1) * (self.scale * 0.5).sum() + self.weight.sum()


torch.manual_seed(0)
net = Net()
x = torch.randn(3, 5)
compiled = torch.compile(net, options={"freezing": True})
with torch.no_grad():
    expected = net(x)
    print(torch.allclose(compiled(x), expected))
    print(torch.allclose(compiled(x * 2), net(x * 2)))
# Training: grad mode on, the parameters stay inputs and the gradient flows as eagerly.
out = compiled(x)
print(torch.allclose(out, net(x).detach()))
out.sum().backward()
print(net.weight.grad is not None)
