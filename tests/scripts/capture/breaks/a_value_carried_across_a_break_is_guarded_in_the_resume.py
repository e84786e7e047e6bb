# After .item() breaks, the resumed frame stores the value (`total = ___stack0`); at its next break Dynamo
# restores that local from its variable, which guards it (`___stack0 == 15.0`), so a new value recompiles the
# resume even though it did not use the value yet.
# expect: [22.0, 23.0]
# expect: [-5.0, -4.0]
# expect recompiles: 2
# expect log: ___stack0 == 15.0
import torch


@torch.compile(backend="eager")
def f(x):
    total = x.sum().item()
    as_list = x.tolist()
    return x + total + 0 * len(as_list)


print(f(torch.tensor([7.0, 8.0])).tolist())
print(f(torch.tensor([-2.0, -1.0])).tolist())
