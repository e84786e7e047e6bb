# A causal attention block (LayerNorm, four heads, masked_fill, softmax, a residual projection) trained for three
# SGD steps with aot_eager equals eager, in one AOT compile.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
import torch
from _lib.eager_comparison import compare_training, same_as_eager
from _lib.models import Attention


def make():
    torch.manual_seed(0)
    return Attention()


def mse(run, x, y):
    return ((run(x) - y) ** 2).mean()


torch.manual_seed(3)
x = torch.randn(2, 5, 16)
y = torch.randn(2, 5, 16)
print(same_as_eager(compare_training(make, "aot_eager", 3, "sgd", x, y, mse)))
