# Writes that the registry's schemas mark: F.relu's `inplace=True` (a write gated by a flag) and the function form
# torch.relu_ (self written by its name). Compiled, both reach the tensors they write, as in eager.
import torch
import torch.nn.functional as F


def step(x, t):
    y = x * 2
    F.relu(y, inplace=True)
    torch.relu_(t)
    return y + 1


x = torch.tensor([-1.0, 2.0])
t_eager = torch.tensor([-3.0, 4.0])
t_compiled = torch.tensor([-3.0, 4.0])
eager = step(x, t_eager)
compiled = torch.compile(step)(x, t_compiled)
print(compiled.tolist(), t_compiled.tolist())
# expect: [1.0, 5.0] [0.0, 4.0]
print(torch.equal(eager, compiled), torch.equal(t_eager, t_compiled))
# expect: True True
