# A learning rate that changes between compiled steps is never stale: the float lr is guarded, so a new value
# recompiles (as Dynamo guards it), and the parameters follow the eager run with the same schedule.
# expect: True
# expect recompiles: 2
# expect log: self.param_groups[0]['lr'] == 0.1
# expect no code: runs on the eager runtime
import torch

torch.manual_seed(0)
w_eager = torch.randn(6, 4, requires_grad=True)
w = w_eager.detach().clone().requires_grad_(True)
opt_eager = torch.optim.SGD([w_eager], lr=0.1, momentum=0.9)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
step = torch.compile(opt.step)
for i in range(4):
    for p, o, s in [(w_eager, opt_eager, opt_eager.step), (w, opt, step)]:
        (p.sin() * p).sum().backward()
        s()
        o.zero_grad()
        if i == 1:
            o.param_groups[0]["lr"] = 0.01
print(torch.allclose(w, w_eager, rtol=1e-6, atol=1e-7))
