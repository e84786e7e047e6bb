# nn.Module.zero_grad and requires_grad_ on a module's parameters, as PyTorch 2.11 prints them.
# expect: tensor([[ 0.4000,  2.8500,  5.3000],
# expect:         [ 1.9000, -3.0500, -8.0000]])
# expect: tensor([ 2.0400, -3.5800])
# expect: tensor([[0., 0., 0.],
# expect:         [0., 0., 0.]])
# expect: None
# expect: False False
import torch
import torch.nn as nn
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    lin.bias.copy_(torch.tensor([0.01, -0.02]))
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
loss = lin(x).pow(2).sum()
loss.backward()
print(lin.weight.grad)
print(lin.bias.grad)
lin.zero_grad(set_to_none=False)
print(lin.weight.grad)
lin.zero_grad()
print(lin.weight.grad)
lin.requires_grad_(False)
print(lin.weight.requires_grad, lin(x).requires_grad)
