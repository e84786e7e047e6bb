# torch.set_grad_enabled as a call and as a context manager (traced inside compiled code: the block's ops run without
# grad, the mode after it is the caller's), torch.is_tensor / is_floating_point folded, and a reversed ModuleList
# slice in a module whose parameters change in place or are replaced (compiled code sees the new values).
# expect: False
# expect: False True
# expect: False True True True
# expect: 2
# expect: [0.0, 0.964] [0.0, 0.964]
# expect: [0.0, 0.9993] [0.0, 0.9993]
# expect: [0.0, 1.0] [0.0, 1.0]
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
print(torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    inside = torch.is_grad_enabled()
print(inside, torch.is_grad_enabled())


def f(x, w):
    with torch.set_grad_enabled(False):
        a = x * w
    b = x * w
    return a, b, torch.is_tensor(x) and torch.is_floating_point(x)


a, b, flag = torch.compile(f, backend="eager")(torch.ones(2), torch.ones(2, requires_grad=True))
print(a.requires_grad, b.requires_grad, flag, torch.is_grad_enabled())


class Gains(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.full((2,), 0.5))
        self.b = nn.Parameter(torch.full((2,), 2.0))
        self.layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])

    def forward(self, x):
        x = x * self.a * self.b
        for layer in self.layers[::-1]:
            x = layer(x)
        return x


model = Gains()
print(len(list(model.parameters())))
compiled = torch.compile(model, backend="eager")
x = torch.tensor([-1.0, 2.0])


def both():
    with torch.no_grad():
        print([round(v, 4) for v in compiled(x).tolist()], [round(v, 4) for v in model(x).tolist()])


both()
with torch.no_grad():
    model.a.fill_(1.0)
both()
model.b = nn.Parameter(torch.full((2,), 3.0))
both()
