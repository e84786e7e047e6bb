# Inductor options that change the compiled code but not the results: freezing (inference under no_grad: the
# module's parameters and buffers are constants, what they alone compute folded once) and shape_padding with
# force_shape_pad (matrix products of unaligned sizes padded to aligned ones where Inductor pads, the result sliced
# back). A training call with freezing on keeps its parameters as inputs, as PyTorch's freezing is for inference.
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(-1.0, 2.0, 35).reshape(7, 5))
        self.register_buffer("scale", torch.arange(7.0) / 7)

    def forward(self, x):
        h = x @ self.weight.t() + self.scale * 2
        return torch.relu(h) * self.weight.sum()


def products(a, b, c, bias):
    return a @ b, torch.bmm(c, c.transpose(1, 2)), torch.addmm(bias, a, b)


def main(device):
    net = Net().to(device)
    x = torch.linspace(-2.0, 2.0, 15, device=device).reshape(3, 5)
    frozen = torch.compile(net, options={"freezing": True})
    with torch.no_grad():
        out = [frozen(x), frozen(x * 0.5)]
    out.append(frozen(x).detach())
    padded = torch.compile(products, options={"shape_padding": True, "force_shape_pad": True})
    a = torch.linspace(-1.0, 1.0, 33, device=device).reshape(3, 11)
    b = torch.linspace(0.0, 2.0, 55, device=device).reshape(11, 5)
    c = torch.linspace(-1.0, 1.0, 42, device=device).reshape(2, 3, 7)
    out += list(padded(a, b, c, torch.ones(5, device=device)))
    return out
