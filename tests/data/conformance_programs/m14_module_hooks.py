# Module hooks seen by compiled code: a forward pre-hook that replaces the input and a forward hook that
# replaces the output, registered after the first compiled call (Dynamo recompiles), on the top module and on
# a submodule, then removed again.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(3, 3)
        with torch.no_grad():
            self.inner.weight.copy_(torch.eye(3) * 2)
            self.inner.bias.fill_(0.5)

    def forward(self, x):
        return self.inner(x) - 1


def pre_hook(module, args):
    return (args[0] * 2,)


def post_hook(module, args, output):
    return output + 100


def main(device):
    model = Net().to(device)
    compiled = torch.compile(model, backend="eager")
    x = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
    out = []
    with torch.no_grad():
        out.append(compiled(x))
        h1 = model.register_forward_pre_hook(pre_hook)
        h2 = model.inner.register_forward_hook(post_hook)
        out.append(compiled(x))
        h1.remove()
        out.append(compiled(x))
        h2.remove()
        out.append(compiled(x))
    return out
