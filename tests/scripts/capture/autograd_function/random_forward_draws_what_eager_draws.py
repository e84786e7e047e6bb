# An autograd.Function whose forward draws random numbers, in a compiled function (aot_eager) between random ops of
# the frame: compiling runs the forward on example values, yet the generator is left where the call found it, so
# the compiled calls draw exactly eager's numbers; the gradient is the class's backward's.
# expect graph_breaks: 0
# expect: True True
# expect: [2.0, 2.0, 2.0, 2.0]
import torch


class Noisy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + torch.rand_like(x)

    @staticmethod
    def backward(ctx, g):
        return g * 2


def f(x):
    return Noisy.apply(x * 1.0) + torch.rand_like(x)


compiled = torch.compile(f, backend="aot_eager")
x = torch.zeros(4, requires_grad=True)
torch.manual_seed(0)
eager = [f(x), f(x)]
torch.manual_seed(0)
got = [compiled(x), compiled(x)]
print(torch.equal(eager[0], got[0]), torch.equal(eager[1], got[1]))
got[1].sum().backward()
print(x.grad.tolist())
