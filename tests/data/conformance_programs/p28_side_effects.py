# Side effects of compiled code on objects from outside: appending to a global list, setting keys of a global
# dict, bumping an attribute of a global object, and a global tensor rebound between calls (new identity).
import torch

HISTORY = []
STATS = {}


class Counter:
    def __init__(self):
        self.calls = 0
        self.total = 0.0


COUNTER = Counter()
OFFSET = torch.tensor([1.0, 2.0, 3.0])


def step(x):
    y = x * 2 + OFFSET.to(x.device)
    HISTORY.append(len(HISTORY))
    STATS[f"call{COUNTER.calls}"] = COUNTER.calls
    COUNTER.calls += 1
    COUNTER.total = COUNTER.total + 0.5
    return y + len(HISTORY)


opt_step = torch.compile(step, backend="eager")


def main(device):
    global OFFSET
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_step(x), opt_step(x)]
    OFFSET = torch.tensor([10.0, 20.0, 30.0])
    out.append(opt_step(x))
    out.append(torch.tensor(HISTORY + list(STATS.values()) + [COUNTER.calls, COUNTER.total]))
    return out
