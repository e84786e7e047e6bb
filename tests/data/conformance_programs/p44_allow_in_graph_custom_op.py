# Python functions made single graph nodes: torch._dynamo.allow_in_graph on a helper of tensor ops, and custom
# operators of Python from torch.library.custom_op (a functional one with register_fake, one that mutates an
# argument) called from compiled code under the eager and aot_eager backends, with a backward through
# register_autograd.
import torch


def fused_scale(x, y):
    return x * 2 + y


torch._dynamo.allow_in_graph(fused_scale)


@torch.library.custom_op("cwbtest::shifted_square", mutates_args=())
def shifted_square(x: torch.Tensor, shift: float) -> torch.Tensor:
    return (x + shift) * (x + shift)


@shifted_square.register_fake
def _(x, shift):
    return torch.empty_like(x)


def _square_backward(ctx, grad):
    x, = ctx.saved_tensors
    return grad * 2 * (x + ctx.shift), None


def _square_setup(ctx, inputs, output):
    x, shift = inputs
    ctx.save_for_backward(x)
    ctx.shift = shift


shifted_square.register_autograd(_square_backward, setup_context=_square_setup)


@torch.library.custom_op("cwbtest::accumulate_into", mutates_args=("acc",))
def accumulate_into(acc: torch.Tensor, x: torch.Tensor) -> None:
    acc.add_(x * 3)


def uses_ops(x, y, acc):
    a = fused_scale(x, y)
    b = shifted_square(a, 1.0)
    accumulate_into(acc, b)
    return b - a


def uses_ops_aot(x, y, acc):
    return uses_ops(x, y, acc)


opt_eager = torch.compile(uses_ops, backend="eager")
opt_aot = torch.compile(uses_ops_aot, backend="aot_eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    y = torch.ones(4, device=device)
    acc = torch.zeros(4, device=device)
    out = [opt_eager(x, y, acc), acc.clone(), opt_aot(x, y, acc), acc.clone()]
    xg = torch.arange(4, dtype=torch.float32, device=device).requires_grad_()
    loss = torch.compile(lambda t: shifted_square(t, 0.5).sum(), backend="aot_eager")(xg)
    loss.backward()
    out += [loss.detach(), xg.grad]
    return out
