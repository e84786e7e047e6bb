# An MLP trained for four Adam steps with aot_eager equals eager; the one AOT compile's code is aot_eager's.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
# expect code_files: cwb_aot_eager
import torch
from _lib.eager_comparison import compare_training, same_as_eager
from _lib.models import MLP


def make():
    torch.manual_seed(0)
    return MLP()


def mse(run, x, y):
    return ((run(x) - y) ** 2).mean()


torch.manual_seed(1)
x = torch.randn(8, 16)
y = torch.randn(8, 8)
print(same_as_eager(compare_training(make, "aot_eager", 4, "adam", x, y, mse)))
