# An autograd.Function whose forward changes a global list: Dynamo cannot put it in the graph ("HOP: Unsafe side
# effect"), so the call runs eagerly between two graphs, once per call, and the gradient is the class's backward's.
# expect graph_breaks: 1
# expect log: HOP: Unsafe side effect
# expect: 2 [3.0, 3.0]
import torch

calls = []


class Logged(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        calls.append(1)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


@torch.compile(backend="aot_eager")
def f(x):
    return Logged.apply(x.sin()).sum()


x = torch.zeros(2, requires_grad=True)
f(x)
f(x).backward()
print(len(calls), x.grad.tolist())
