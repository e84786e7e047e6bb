# Parameter groups with their own lr, the momentum buffer in opt.state, zero_grad with and without set_to_none.
# expect: 2 0.1 0.5 0.9
# expect: [0.8999999761581421, 1.899999976158142] [2.0] [1.0, 1.0]
# expect: tensor([0., 0.]) tensor([0.])
# expect: None None
# expect: True SGD
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
print(len(opt.param_groups), opt.param_groups[0]["lr"], opt.param_groups[1]["lr"], opt.param_groups[1]["momentum"])
(a.sum() + 2 * b.sum()).backward()
opt.step()
print(a.tolist(), b.tolist(), opt.state[a]["momentum_buffer"].tolist())
opt.param_groups[0]["lr"] = 1.0
opt.zero_grad(set_to_none=False)
print(a.grad, b.grad)
opt.zero_grad()
print(a.grad, b.grad)
print(isinstance(opt, torch.optim.Optimizer), type(opt).__name__)
