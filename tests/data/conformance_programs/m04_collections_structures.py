# collections and structured values: namedtuple (fields, _replace, _fields, indexing, as an argument),
# typing.NamedTuple, OrderedDict (move_to_end, popitem), defaultdict(list), deque (appendleft, rotate, maxlen),
# Counter (most_common, update), and a dataclass argument.
import collections
import dataclasses
import typing

import torch

Pair = collections.namedtuple("Pair", ["left", "right"])


class Spec(typing.NamedTuple):
    scale: float
    shift: float = 0.5


@dataclasses.dataclass
class Config:
    depth: int
    gain: float = 2.0
    tags: list = dataclasses.field(default_factory=list)


def named(x, pair):
    p = Pair(x * 2, x + 1)
    q = p._replace(right=p.right * 3)
    s = Spec(1.5)
    left, right = q
    return left + right + pair.left * pair[1] + s.scale * s.shift + len(Pair._fields)


def ordered(x):
    od = collections.OrderedDict()
    od["a"] = 1
    od["b"] = 2
    od["c"] = 3
    od.move_to_end("a")
    key, value = od.popitem(last=False)
    dd = collections.defaultdict(list)
    for i, name in enumerate(["x", "y", "x", "z", "x"]):
        dd[name].append(i)
    acc = x * value
    for k, v in od.items():
        acc = acc * 2 + v
    return acc + len(dd["x"]) * 10 + sum(dd["z"]) + len(dd) + (1 if key == "b" else 0)


def queues(x):
    dq = collections.deque([1, 2, 3], maxlen=4)
    dq.append(4)
    dq.append(5)
    dq.appendleft(0)
    dq.rotate(1)
    counts = collections.Counter("abracadabra")
    counts.update(["z", "z"])
    top = counts.most_common(2)
    acc = x
    for v in dq:
        acc = acc * 2 + v
    return acc + top[0][1] * 100 + top[1][1] * 10 + counts["z"]


def configured(x, cfg):
    for _ in range(cfg.depth):
        x = x * cfg.gain
    cfg.tags.append("seen")
    return x + len(cfg.tags)


opt_named = torch.compile(named, backend="eager")
opt_ordered = torch.compile(ordered, backend="eager")
opt_queues = torch.compile(queues, backend="eager")
opt_configured = torch.compile(configured, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    cfg = Config(2)
    out = [opt_named(x, Pair(x, x - 1)), opt_ordered(x), opt_queues(x), opt_configured(x, cfg)]
    cfg.depth = 3
    out.append(opt_configured(x, cfg))
    out.append(torch.tensor([len(cfg.tags)], device=device))
    return out
