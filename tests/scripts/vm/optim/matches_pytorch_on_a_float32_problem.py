# The same toy problem PyTorch 2.11 ran (float32): the VM's parameters after three steps, to 5 decimals.
# expect: ['-0.03974', '-0.62344', '1.65386'] ['1.08628']
# expect: ['-0.01164', '0.23024', '1.33750'] ['1.81874']
# expect: ['-0.46445', '-0.14108', '1.11806'] ['1.27222']
# expect: ['1.50276', '-5.08086', '4.69012'] ['-1.89162']
# expect: ['0.70017', '-1.70125', '2.70105'] ['0.79815']
# expect: ['0.70020', '-1.70124', '2.70102'] ['0.79810']
# expect: ['0.69749', '-1.69558', '2.69238'] ['0.79632']
# expect: ['0.57312', '-1.43198', '2.28958'] ['0.71049']
# expect: ['0.69830', '-1.69505', '2.69197'] ['0.52978']
import torch


def run(make_opt, steps=3):
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)
    opt = make_opt([w, b])
    for i in range(steps):
        opt.zero_grad()
        loss = ((w * torch.tensor([1.0, 2.0, -1.0]) + b) ** 2).sum() + (w ** 3).sum() * 0.1
        loss.backward()
        opt.step()
    print([f"{v:.5f}" for v in w.tolist()], [f"{v:.5f}" for v in b.tolist()])


run(lambda p: torch.optim.SGD(p, lr=0.1))
run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01))
run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.5, dampening=0.3, maximize=True))
run(lambda p: torch.optim.Adam(p, lr=0.1))
run(lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.1, amsgrad=True))
run(lambda p: torch.optim.AdamW(p, lr=0.1))
run(lambda p: torch.optim.AdamW(p, lr=0.1, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.5, amsgrad=True))
run(lambda p: torch.optim.AdamW([{'params': [p[0]]}, {'params': [p[1]], 'lr': 0.01}], lr=0.1))
