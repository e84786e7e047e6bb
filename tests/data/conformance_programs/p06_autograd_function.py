# Custom torch.autograd.Function classes called in compiled code (aot_eager): save_for_backward, a non-tensor
# argument kept on ctx, a straight-through estimator; gradients through the compiled graph equal eager's.
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


class StraightRound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


def loss_fn(x, w):
    y = ScaledSquare.apply(x, 3.0) + StraightRound.apply(x * w)
    return (y * w).sum()


opt_loss = torch.compile(loss_fn, backend="aot_eager")


def main(device):
    out = []
    for step in range(2):
        x = torch.linspace(-1.5, 1.5, 6, device=device).requires_grad_(True)
        w = (torch.arange(6, dtype=torch.float32, device=device) * 0.3 + step).requires_grad_(True)
        loss = opt_loss(x, w)
        loss.backward()
        out.extend([loss.detach(), x.grad, w.grad])
    return out
