# The shared models trained compiled against eager, one function per model, for programs that differ only in the
# backend or the optimizer.
import torch
from _lib.eager_comparison import compare_training
from _lib.models import MLP, Attention


def seeded(model_class):
    """A factory of model_class built from seed 0, so that the eager and the compiled copy start equal."""
    def make():
        torch.manual_seed(0)
        return model_class()
    return make


def mse(run, x, y):
    return ((run(x) - y) ** 2).mean()


def mlp_training(backend, opt_name):
    """Four steps of the MLP on [8, 16] -> [8, 8]: [eager values, compiled values]."""
    torch.manual_seed(1)
    x = torch.randn(8, 16)
    y = torch.randn(8, 8)
    return compare_training(seeded(MLP), backend, 4, opt_name, x, y, mse)


def attention_training(backend):
    """Three SGD steps of the causal attention block on [2, 5, 16]: [eager values, compiled values]."""
    torch.manual_seed(3)
    x = torch.randn(2, 5, 16)
    y = torch.randn(2, 5, 16)
    return compare_training(seeded(Attention), backend, 3, "sgd", x, y, mse)
