# collections methods in compiled code: OrderedDict popitem(last=False) and move_to_end(last=False), deque
# rotate/appendleft/extendleft/popleft and indexing, Counter most_common/update/arithmetic, defaultdict(list)
# grouping, and namedtuple _asdict/_make, each feeding tensor arithmetic.
import collections

import torch

Pair = collections.namedtuple("Pair", ["scale", "shift"])


def ordered(x):
    d = collections.OrderedDict()
    for i, name in enumerate(["a", "b", "c", "d"]):
        d[name] = x * (i + 1)
    d.move_to_end("c", last=False)
    first_key, first = d.popitem(last=False)
    last_key, last = d.popitem()
    order = list(d.keys())
    return first - last + len(order), torch.tensor([ord(first_key), ord(last_key), ord(order[0])], device=x.device)


def queues(x):
    q = collections.deque([1, 2, 3, 4])
    q.rotate(1)
    q.appendleft(10)
    q.extendleft([20, 30])
    left = q.popleft()
    q.rotate(-2)
    return x * left + q[0] * 100 + q[-1] + len(q)


def counting(x):
    c = collections.Counter("abracadabra")
    c.update(["a", "z", "z"])
    top = c.most_common(2)
    merged = c + collections.Counter({"b": 5})
    less = c - collections.Counter({"a": 10})
    groups = collections.defaultdict(list)
    for w in ["apple", "avocado", "banana", "blueberry", "cherry"]:
        groups[w[0]].append(len(w))
    p = Pair._make([2.0, 1.0])
    fields = p._asdict()
    y = x * fields["scale"] + fields["shift"]
    stats = [top[0][1], ord(top[1][0]), merged["b"], len(less), sum(groups["b"]), len(groups)]
    return y, torch.tensor(stats, device=x.device)


opt_ordered = torch.compile(ordered, backend="eager")
opt_queues = torch.compile(queues, backend="eager")
opt_counting = torch.compile(counting, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    a, keys = opt_ordered(x)
    y, stats = opt_counting(x)
    return [a, keys.float(), opt_queues(x), y, stats.float()]
