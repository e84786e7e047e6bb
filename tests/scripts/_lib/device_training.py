# Training steps compiled against eager on one device (the cpu and cuda programs of aot/training): the loss, every
# gradient and the parameters after three optimizer steps (SGD with momentum, Adam, AdamW) of the shared models and
# of ops whose derivatives are recorded from the eager formulas, in float32 and bfloat16, inductor and aot_eager.
import torch
import torch.nn as nn
import torch.nn.functional as F
from _lib.eager_comparison import same_as_eager
from _lib.models import MLP, Attention, Block


class Recorded(nn.Module):
    """Ops without a graph rule: their derivatives are the eager runtime's formulas, recorded into the joint graph."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)

    def forward(self, x):
        h = self.fc(x)
        return (torch.atan(h) * torch.clamp(h, -0.5, 0.8) + F.leaky_relu(h, 0.2) + F.softplus(h) * torch.log1p(h * h)
                + torch.maximum(h, x) + torch.where(h > 0, h * x, torch.erf(h)) + torch.reciprocal(h * h + 1.0)
                + torch.lerp(h, x, 0.25))


class MeanSquaredError(nn.Module):
    """model's mean squared error to y, computed inside the compiled module."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        return ((self.model(x) - y) ** 2).mean()


def data(name):
    torch.manual_seed(1)
    if name == "mlp":
        return torch.randn(8, 16), torch.randn(8, 8)
    if name == "block":
        return torch.randn(6, 24), torch.tensor([1, 0, 9, 3, 3, 7])
    if name == "attention":
        return torch.randn(2, 5, 16), torch.randn(2, 5, 16)
    return torch.randn(6, 12), torch.randn(6, 12)


def train(name, backend, opt_name, dtype, device):
    """Three steps: each loss and gradient, then the parameters (as float32 on the cpu); backend None is eager."""
    torch.manual_seed(0)
    model = Block() if name == "block" else MeanSquaredError({"mlp": MLP, "attention": Attention, "recorded": Recorded}[name]())
    model = model.to(device=device, dtype=dtype)
    x, y = data(name)
    x = x.to(device=device, dtype=dtype)
    y = y.to(device=device, dtype=dtype if y.is_floating_point() else y.dtype)
    run = torch.compile(model, backend=backend) if backend else model
    params = list(model.parameters())
    if opt_name == "adam":
        opt = torch.optim.Adam(params, lr=0.01)
    elif opt_name == "adamw":
        opt = torch.optim.AdamW(params, lr=0.01, weight_decay=0.1)
    else:
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)
    out = []
    for i in range(3):
        opt.zero_grad()
        loss = run(x, y)
        loss.backward()
        out.append(loss.detach().float().cpu())
        for p in params:
            out.append(p.grad.float().cpu())
        opt.step()
    for p in params:
        out.append(p.detach().float().cpu())
    return out


# model, backend, optimizer, dtype. Attention trains with SGD: its key bias has a gradient of zero up to rounding
# (softmax ignores a per-row constant), which Adam would normalise into full-size steps of noise.
CASES = [("mlp", "inductor", "sgd", "float32"), ("mlp", "aot_eager", "adam", "float32"),
         ("block", "inductor", "adamw", "float32"), ("block", "aot_eager", "sgd", "float32"),
         ("attention", "inductor", "sgd", "float32"), ("recorded", "inductor", "sgd", "float32"),
         ("recorded", "aot_eager", "adamw", "float32"), ("mlp", "inductor", "adamw", "bfloat16"),
         ("block", "inductor", "adam", "bfloat16")]


def every_case_equals_eager(device):
    """Prints each case and same_as_eager of its eager and compiled values; bfloat16 keeps 8 bits of mantissa, so a
    different summation order moves results by a few of its ulps."""
    for name, backend, opt_name, dtype_name in CASES:
        torch._dynamo.reset()
        dtype = torch.bfloat16 if dtype_name == "bfloat16" else torch.float32
        pair = [train(name, None, opt_name, dtype, device), train(name, backend, opt_name, dtype, device)]
        print(name, backend, opt_name, dtype_name, same_as_eager(pair, 3e-2 if dtype_name == "bfloat16" else 2e-4))
