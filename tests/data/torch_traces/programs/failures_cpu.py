"""Failed compiles: fullgraph=True with a graph break, a backend that raises,
one function that compiles fine, then torch._dynamo.reset() and the same
function compiled again (compile ids repeat in one log)."""
import copy

import torch
from torch._dynamo.utils import counters


@torch.compile(fullgraph=True)
def strict(x):
    y = torch.cos(x) * 2.0
    print("strict: a graph break that fullgraph=True forbids")
    return y + 1.0


def broken_backend(gm, example_inputs):
    raise RuntimeError("broken_backend refuses to compile")


@torch.compile(backend=broken_backend)
def uses_broken(x):
    return torch.sin(x) + 1.0


@torch.compile
def fine(x):
    return torch.cos(x) * 2.0 + 1.0


def main(device):
    caught = []
    x = torch.linspace(-1.0, 1.0, 32, device=device)
    for fn in (strict, uses_broken):
        try:
            fn(x)
            caught.append({"function": fn.__name__, "raised": None})
        except Exception as e:  # expected
            caught.append({"function": fn.__name__,
                           "type": type(e).__module__ + "." + type(e).__name__,
                           "message": str(e)})
    fine(x)
    before = {k: dict(v) for k, v in copy.deepcopy(counters).items()}
    torch._dynamo.reset()
    fine(x)
    return {"caught": caught, "counters_before_reset": before}
