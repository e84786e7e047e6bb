# torch.utils.checkpoint.checkpoint(use_reentrant=False) in compiled code (aot_eager): the checkpointed function is
# traced into the frame's graph (one graph, no break), with values and gradients equal to eager's; the reentrant
# form, not supported yet, says so.
# expect unique_graphs: 1
# expect graph_breaks: 0
# expect: True
# expect error: NotImplementedError: cwb: torch.utils.checkpoint.checkpoint with use_reentrant=True
import torch
from torch.utils.checkpoint import checkpoint


def block(x, w):
    return torch.sin(x @ w) * x


def model(x, w):
    y = checkpoint(block, x, w, use_reentrant=False)
    return (checkpoint(block, y, w, use_reentrant=False) ** 2).sum()


def run(fn):
    x = torch.cos(torch.arange(12, dtype=torch.float32).reshape(3, 4)).requires_grad_(True)
    w = (torch.arange(16, dtype=torch.float32).reshape(4, 4) * 0.05).requires_grad_(True)
    loss = fn(x, w)
    loss.backward()
    return [loss, x.grad, w.grad]


print(all(torch.allclose(a, b) for a, b in zip(run(model), run(torch.compile(model, backend="aot_eager")))))
checkpoint(block, torch.ones(4, 4), torch.ones(4, 4), use_reentrant=True)
