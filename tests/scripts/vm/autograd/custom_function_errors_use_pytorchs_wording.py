# A custom autograd.Function whose backward returns too few gradients fails as PyTorch does.
# expect error: RuntimeError: function BadBackward returned an incorrect number of gradients (expected 2, got 1)
import torch


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, g):
        return g


a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
Bad.apply(a, b).sum().backward()
