# Once a's size is dynamic, torch.mm, torch.cat and torch.stack get their output sizes from their operands'
# ([s0, 5], [s0 + s0], [s0, 2]): both compiles run compiled code for every size, equal to eager, with no note.
# expect: [True, True, True, True]
# expect unique_graphs: 2
# expect no code: runs on the eager runtime
# expect warnings: 0
import torch


def with_shape_rules(a, b):
    return torch.mm(a.unsqueeze(1), b.unsqueeze(0)) * 2, torch.cat([a, a]) + 1, torch.stack([a, a], dim=1)


g = torch.compile(with_shape_rules)
b = torch.arange(5, dtype=torch.float32)
same = []
for n in [2, 5, 4, 7]:
    a = torch.arange(n, dtype=torch.float32) + 1
    same.append(all(torch.equal(x, y) for x, y in zip(g(a, b), with_shape_rules(a, b))))
print(same)
