# torch.autograd.Function run eagerly: forward under no_grad, ctx.save_for_backward / saved_tensors, a non-tensor
# argument on ctx, needs_input_grad, mark_non_differentiable, several outputs, the setup_context style, no node
# under no_grad, and the user's backward (not the forward's derivative) giving the gradients.
# expect: [2.0, 16.0] CubeBackward
# expect: (True, False)
# expect: [6.0, 24.0]
# expect: True False
# expect: [100.0, 1.0, 10.0]
# expect: [5.0, 5.0]
# expect: False
# expect: [1.0, 1.0, 1.0] [2.0, 2.0, 2.0]
# expect: True
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        print(ctx.needs_input_grad)
        return g * 3 * x * x * ctx.k, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x, 2.0)
print(y.tolist(), y.grad_fn.name())
y.sum().backward()
print(x.grad.tolist())


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = torch.sort(x)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g, g_idx):
        (idx,) = ctx.saved_tensors
        return torch.zeros_like(g).scatter_add(0, idx, g)


s = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = SortWithIndex.apply(s)
print(v.requires_grad, i.requires_grad)
(v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(s.grad.tolist())


class MulConst(torch.autograd.Function):
    @staticmethod
    def forward(x, c):
        return x * c

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.c = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.c, None


a = torch.tensor([1.0, -1.0], requires_grad=True)
MulConst.apply(a, 5.0).sum().backward()
print(a.grad.tolist())

with torch.no_grad():
    print(Cube.apply(x, 1.0).requires_grad)


class StraightRound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


r = torch.tensor([0.2, 1.7, -0.6], requires_grad=True)
(StraightRound.apply(r) * 2).sum().backward()
w = torch.tensor([0.2, 1.7, -0.6], requires_grad=True)
StraightRound.apply(w).sum().backward()
print(w.grad.tolist(), r.grad.tolist())
print(Cube.apply(x, 1.0).requires_grad)
