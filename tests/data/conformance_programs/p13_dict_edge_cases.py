# Dict edge cases in compiled code: 1/True and 0/False as one key, tuple/None/float keys, copy() independent of its
# source, dict(zip()), equality, delete and re-insert moving a key to the end, reversed(d), OrderedDict.move_to_end.
import collections

import torch


def dict_edges(x):
    d = {1: "one", 0: "zero"}
    d[True] = "true"
    d[(1, 2)] = "pair"
    d[None] = "none"
    d[2.5] = "float"
    c = d.copy()
    c[0] = "changed"
    z = dict(zip(["a", "b", "c"], [1, 2, 3]))
    same = z == {"c": 3, "b": 2, "a": 1}
    del z["a"]
    z["a"] = 10
    last = list(z)[-1]
    rev = list(reversed(z))
    od = collections.OrderedDict(p=1, q=2, r=3)
    od.move_to_end("p")
    od.move_to_end("r", last=False)
    first = next(iter(od))
    score = len(d) * 100 + (d[1] == "true") * 10 + (d[0] == "zero") + len(c[0])
    score += z[last] + (rev[0] == "a") * 1000 + (first == "r") * 7 + same * 3
    return x * score + list(od.values())[1]


opt_dict = torch.compile(dict_edges, backend="eager")


def main(device):
    x = torch.ones(2, device=device)
    return [opt_dict(x)]
