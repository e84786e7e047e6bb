# A LayerNorm / GELU (both forms) / softmax / cross-entropy block trained for three Adam steps with the inductor
# equals eager, in one AOT compile.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
import torch
from _lib.eager_comparison import compare_training, same_as_eager
from _lib.model_training import seeded
from _lib.models import Block


def loss_of(run, x, y):
    return run(x, y)


torch.manual_seed(2)
x = torch.randn(6, 24)
y = torch.tensor([1, 0, 9, 3, 3, 7])
print(same_as_eager(compare_training(seeded(Block), "inductor", 3, "adam", x, y, loss_of)))
