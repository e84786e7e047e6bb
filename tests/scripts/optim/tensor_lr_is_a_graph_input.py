# A learning rate given as a tensor is a graph input of the compiled step: changing it in place between steps
# recompiles nothing, and the parameters follow the eager run with the same schedule.
# expect: True
# expect recompiles: 1
# expect no code: runs on the eager runtime
import torch

torch.manual_seed(0)
w_eager = torch.randn(5, 3, requires_grad=True)
w = w_eager.detach().clone().requires_grad_(True)
opt_eager = torch.optim.SGD([w_eager], lr=torch.tensor(0.1), momentum=0.5, nesterov=True)
opt = torch.optim.SGD([w], lr=torch.tensor(0.1), momentum=0.5, nesterov=True)
step = torch.compile(opt.step)
for i in range(4):
    for p, o, s in [(w_eager, opt_eager, opt_eager.step), (w, opt, step)]:
        (p.cos() * p).sum().backward()
        s()
        o.zero_grad()
        o.param_groups[0]["lr"].mul_(0.5)
print(torch.allclose(w, w_eager, rtol=1e-6, atol=1e-7))
