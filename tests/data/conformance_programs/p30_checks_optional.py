# Python checks in compiled code: `is None` on optional arguments, chained comparisons on sizes, an early return
# for an empty tensor, isinstance with a tuple, callable(), hasattr()/getattr() with a default, type(v) is int.
import torch


class Holder:
    def __init__(self):
        self.bias = 2.0


def checks(x, extra=None, fn=None, holder=None, k=1):
    if x.numel() == 0:
        return x.new_zeros(1)
    y = x * 2
    if extra is not None:
        y = y + extra
    if 0 < x.shape[0] <= 4:
        y = y + 10
    if callable(fn):
        y = fn(y)
    if holder is not None and hasattr(holder, "bias"):
        y = y + getattr(holder, "bias") + getattr(holder, "missing", 5.0)
    if isinstance(k, (int, float)) and type(k) is int:
        y = y * k
    return y


opt_checks = torch.compile(checks, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    return [
        opt_checks(x),
        opt_checks(x, extra=torch.ones(3, device=device)),
        opt_checks(x, fn=torch.neg),
        opt_checks(x, holder=Holder(), k=2),
        opt_checks(torch.arange(6, dtype=torch.float32, device=device), k=2.5),
        opt_checks(torch.empty(0, device=device)),
    ]
