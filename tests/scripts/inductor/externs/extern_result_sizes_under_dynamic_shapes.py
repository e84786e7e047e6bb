# Once a's size is dynamic, torch.mm, torch.cat and torch.stack get their output sizes from their operands'
# ([s0, 5], [s0 + s0], [s0, 2]) and their graph runs compiled for every size. torch.outer's is traced as
# [s0, s0] (b's static 5 was the same size as s0 on the call that recompiled): when the extern returns other
# sizes, that graph runs on the eager runtime from then on, noted once as a warning of its compile. Every
# result equals eager.
# expect: [True, True, True, True] [True, True, True, True]
# expect unique_graphs: 4
# expect no code: runs on the eager runtime
# expect warnings: 1
# expect warning: cwb inductor: this graph runs on the eager runtime from now on: extern kernel torch.outer (buf0) returned sizes [4, 5] where the compiled graph expects [4, 4]
import torch


def with_shape_rules(a, b):
    return torch.mm(a.unsqueeze(1), b.unsqueeze(0)) * 2, torch.cat([a, a]) + 1, torch.stack([a, a], dim=1)


def traced_sizes(a, b):
    return torch.outer(a, b) * 2


def agree(f):
    g = torch.compile(f)
    b = torch.arange(5, dtype=torch.float32)
    same = []
    for n in [2, 5, 4, 7]:
        a = torch.arange(n, dtype=torch.float32) + 1
        same.append(all(torch.equal(x, y) for x, y in zip(g(a, b), f(a, b))))
    return same


print(agree(with_shape_rules), agree(traced_sizes))
