# cumsum has no derivative AOT Autograd can trace: the region keeps eager autograd, whose nodes no capture can see,
# so the pass runs on the eager autograd engine and the log says why.
# expect: True
# expect: 0
# expect log: compiled autograd: this backward runs on the eager autograd engine:
import torch
from _lib.compiled_autograd_training import compiled_autograd_counts, eager_and_compiled_steps
from _lib.eager_comparison import same_as_eager


def cumulative(out, y):
    return torch.cumsum(out - y, dim=1).pow(2).mean()


print(same_as_eager(eager_and_compiled_steps("inductor", True, loss_of=cumulative)))
print(compiled_autograd_counts()[0])
