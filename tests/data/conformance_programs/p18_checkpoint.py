# torch.utils.checkpoint.checkpoint (non-reentrant) inside a compiled function (aot_eager): forward values and
# gradients equal eager's, with a checkpointed helper that closes over a parameter-like tensor.
import torch
from torch.utils.checkpoint import checkpoint


def block(x, w):
    return torch.sin(x @ w) * x


def model(x, w):
    y = checkpoint(block, x, w, use_reentrant=False)
    z = checkpoint(block, y, w, use_reentrant=False)
    return (z * z).sum()


opt_model = torch.compile(model, backend="aot_eager")


def main(device):
    x = torch.cos(torch.arange(12, dtype=torch.float32, device=device).reshape(3, 4)).requires_grad_(True)
    w = (torch.arange(16, dtype=torch.float32, device=device).reshape(4, 4) * 0.05).requires_grad_(True)
    loss = opt_model(x, w)
    loss.backward()
    return [loss.detach(), x.grad, w.grad]
