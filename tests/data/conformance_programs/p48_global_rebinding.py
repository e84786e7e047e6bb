# Globals seen by compiled code: a `global` statement creating a name that did not exist before the first call, a
# global counter bumped every call, a global helper function rebound between calls (its new body is used), a
# global float changed between calls, math.pi read through the module, and a global tuple of tensors replaced.
import math

import torch

STEP = 0
FACTOR = 1.5
WEIGHTS = (torch.ones(3), torch.full((3,), 2.0))


def activation(t):
    return t.relu()


def remember(x):
    global CREATED
    CREATED = 7 + STEP
    return x + CREATED


def step(x):
    global STEP
    STEP += 1
    y = activation(x - 2) * FACTOR + math.pi
    return y + WEIGHTS[0].to(x.device) * WEIGHTS[1].to(x.device) + STEP


opt_remember = torch.compile(remember, backend="eager")
opt_step = torch.compile(step, backend="eager")


def main(device):
    global activation, FACTOR, WEIGHTS
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_remember(x), torch.tensor([CREATED], device=device)]
    out.append(opt_step(x))
    out.append(opt_step(x))
    activation = torch.sigmoid
    out.append(opt_step(x))
    FACTOR = 2.5
    out.append(opt_step(x))
    WEIGHTS = (torch.full((3,), 3.0), torch.full((3,), 0.5))
    out.append(opt_step(x))
    out.append(torch.tensor([STEP], device=device))
    return out
