# A global set read by compiled code (its length, membership) is guarded: adding to it between calls
# recompiles instead of reusing the first call's answer.
import torch

names = set(["a", "b"])


def weigh(x):
    return torch.cos(x) * len(names) + ("c" in names)


opt_weigh = torch.compile(weigh, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    out = [opt_weigh(x)]
    names.add("c")
    out.append(opt_weigh(x))
    names.discard("a")
    out.append(opt_weigh(x))
    return out
