# torch.outer's output size is traced as [s0, s0] (b's static 5 was the same size as s0 on the call that
# recompiled): when the extern returns other sizes, the graph runs on the eager runtime from then on, noted once
# as a warning of its compile, and every result still equals eager.
# expect: [True, True, True, True]
# expect warnings: 1
# expect warning: cwb inductor: this graph runs on the eager runtime from now on: extern kernel torch.outer (buf0) returned sizes [4, 5] where the compiled graph expects [4, 4]
import torch


def traced_sizes(a, b):
    return torch.outer(a, b) * 2


g = torch.compile(traced_sizes)
b = torch.arange(5, dtype=torch.float32)
same = []
for n in [2, 5, 4, 7]:
    a = torch.arange(n, dtype=torch.float32) + 1
    same.append(all(torch.equal(x, y) for x, y in zip(g(a, b), traced_sizes(a, b))))
print(same)
