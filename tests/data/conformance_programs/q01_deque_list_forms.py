# Deque and list forms in compiled code: a deque mixing strings and tensors (insert, pop, extendleft of another deque,
# item assignment, copy, popleft, clear), list slice assignment, `not` of a list, next(iter(reversed())), tuples
# padded with None, `4 * [x]` summed, `in`/`not in` over lists holding a tensor, a list attribute trimmed by slicing.
import collections

import torch


class Recorder:
    def __init__(self):
        self.history = []

    def step(self, x):
        self.history = self.history[-2:]
        self.history.append(x)
        return torch.cos(x) + len(self.history)


def deque_forms(a, b):
    q = collections.deque([a, b])
    q.append(a * 2)
    q.extend([b, a])
    q.insert(1, "tag")
    last = q.pop()
    other = collections.deque([last + 1])
    q.extendleft(other)
    other.clear()
    q.extend(other)
    q[3] = "slot"
    q = q.copy()
    q.append(q.popleft())
    tensors = [v for v in q if isinstance(v, torch.Tensor)]
    names = [v for v in q if isinstance(v, str)]
    return sum(tensors) * len(names), len(q)


def list_forms(x):
    m = [1, 2, 3, 4, 5]
    m[1:3] = [9] * 3
    m[-1:] = []
    flag = not [x]
    rev = [x + 1, x + 2, x + 3]
    tail = next(iter(reversed(rev)))
    padded = (None,) + (x, x * 2) + (None,)
    quad = sum(4 * [x])
    mixed = [1, 2, 3, x]
    hit = 2 in mixed and 7 not in [1, 2, 3]
    return x * sum(m) + tail + padded[1] + padded[2] + quad + float(flag) + float(hit), len(m)


opt_deque = torch.compile(deque_forms, backend="eager")
opt_list = torch.compile(list_forms, backend="eager")


def main(device):
    a = torch.arange(4, dtype=torch.float32, device=device)
    b = torch.linspace(-1.0, 1.0, 4, device=device)
    s, n = opt_deque(a, b)
    y, k = opt_list(a)
    rec = Recorder()
    rec.step = torch.compile(rec.step, backend="eager")
    outs = [rec.step(a + i) for i in range(4)]
    return [s, torch.tensor(float(n)), y, torch.tensor(float(k)), torch.stack(outs),
            torch.tensor(float(len(rec.history))), rec.history[0]]
