# The second batch size recompiles the step with a dynamic batch, whose backward graph has symbolic sizes: that
# region's backward runs on the eager autograd engine with the reason logged; the first size's was captured.
# expect: True
# expect: 1
# expect log: the backward of a compiled region with dynamic shapes
import torch
from _lib.compiled_autograd_training import compiled_autograd_counts
from _lib.eager_comparison import same_as_eager
from _lib.models import MLP


def step(model, x):
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss


def train(fn):
    torch.manual_seed(0)
    model = MLP()
    values = []
    for n in [4, 6, 8]:
        model.zero_grad()
        torch.manual_seed(n)
        values.append(fn(model, torch.randn(n, 16)).detach())
        values.append(model.fc1.weight.grad.clone())
    return values


torch._dynamo.config.compiled_autograd = True
print(same_as_eager([train(step), train(torch.compile(step))]))
print(compiled_autograd_counts()[0])
