# Compiler controls in compiled code: a torch._dynamo.disable helper and a torch.compiler.disable helper (graph
# breaks), torch.compiler.is_compiling() branches (compiled differs from eager by design), an explicit
# torch._dynamo.graph_break(), and fullgraph=True refusing a graph break.
import torch


@torch._dynamo.disable
def eager_only(x):
    return x * 3


@torch.compiler.disable
def also_eager(x):
    return x - 1


def controls(x):
    y = x + 1
    y = eager_only(y)
    if torch.compiler.is_compiling():
        y = y + 100
    torch._dynamo.graph_break()
    y = also_eager(y) * 2
    return y


def strict(x):
    y = x.sin()
    torch._dynamo.graph_break()
    return y.cos()


opt_controls = torch.compile(controls, backend="eager")
opt_strict = torch.compile(strict, backend="eager", fullgraph=True)


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_controls(x), opt_controls(x + 1)]
    try:
        out.append(opt_strict(x))
    except Exception as e:
        out.append(torch.tensor([float(len(type(e).__name__) > 0)]))
    return out
