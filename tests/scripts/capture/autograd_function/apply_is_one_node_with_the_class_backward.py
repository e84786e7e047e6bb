# torch.autograd.Function.apply in compiled code, with aot_eager (the backward's ops recorded into AOT Autograd's
# joint graph) and eager: one graph each, no break, and gradients from the class's backward (a straight-through
# round has none of its own), equal to eager's. A forward may read a global number.
# expect unique_graphs: 2
# expect graph_breaks: 0
# expect graph_names: dynamo_output_graph, aot_joint_graph, aot_forward_graph, aot_backward_graph, dynamo_output_graph
# expect graph: apply: "f32[6][1]cpu" = __main__.ScaledSquare.apply(primals_1, 3.0)
# expect: aot_eager True
# expect: eager True
import torch


class ScaledSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * k

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x * ctx.k, None


SCALE = 1.0  # a global the forward reads: no side effect, no break


class StraightRound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x * SCALE) / SCALE

    @staticmethod
    def backward(ctx, grad):
        return grad


def loss_fn(x, w):
    y = ScaledSquare.apply(x, 3.0) + StraightRound.apply(x * w)
    return (y * w).sum()


def run(fn):
    out = []
    for step in range(2):
        x = torch.linspace(-1.5, 1.5, 6).requires_grad_(True)
        w = (torch.arange(6, dtype=torch.float32) * 0.3 + step).requires_grad_(True)
        loss = fn(x, w)
        loss.backward()
        out += [loss.detach(), x.grad, w.grad]
    return out


expected = run(loss_fn)
for backend in ["aot_eager", "eager"]:
    got = run(torch.compile(loss_fn, backend=backend))
    print(backend, all(torch.allclose(a, b) for a, b in zip(expected, got)))
