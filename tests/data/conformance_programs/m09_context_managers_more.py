# More context managers: torch.set_grad_enabled as a context manager and as a function call, a @torch.no_grad()
# decorated helper, contextlib.nullcontext, `with a, b:` (entered and left in order), an __exit__ that
# suppresses an exception, torch.inference_mode, and a context manager object passed in as an argument.
import contextlib

import torch


class Recorder:
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def __enter__(self):
        self.log.append(self.name + "+")
        return len(self.log)

    def __exit__(self, exc_type, exc, tb):
        self.log.append(self.name + "-")
        return exc_type is not None and issubclass(exc_type, ArithmeticError)


@torch.no_grad()
def frozen_scale(x, w):
    return x * w


def grad_switches(x, w):
    with torch.set_grad_enabled(False):
        a = x * w
    b = frozen_scale(x, w)
    with contextlib.nullcontext():
        c = x * w
    with torch.inference_mode():
        d = x * 3
    return a + b + c.detach() + d, torch.tensor([a.requires_grad, b.requires_grad, c.requires_grad])


def ordered_exit(x, log):
    with Recorder("a", log) as first, Recorder("b", log) as second:
        y = x * (first * 10 + second)
    with Recorder("c", log):
        y = y + 1
        raise ZeroDivisionError("swallowed")
    return y + len(log)


def passed_in(x, ctx):
    with ctx as depth:
        y = x + depth
    return y


opt_switches = torch.compile(grad_switches, backend="eager")
opt_exit = torch.compile(ordered_exit, backend="eager")
opt_passed = torch.compile(passed_in, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    w = torch.full((3,), 2.0, device=device, requires_grad=True)
    y, flags = opt_switches(x, w)
    out = [y.detach(), flags.float(), torch.tensor([torch.is_grad_enabled()], device=device).float()]
    log = []
    out.append(opt_exit(x, log))
    out.append(torch.tensor([len(log)], device=device))
    log2 = ["z"]
    out.append(opt_passed(x, Recorder("p", log2)))
    out.append(torch.tensor([len(log2)], device=device))
    return out
