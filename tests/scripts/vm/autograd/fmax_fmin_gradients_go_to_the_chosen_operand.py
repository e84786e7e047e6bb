# torch.fmax / torch.fmin send the gradient to the operand they chose: self on ties and where other is NaN
# (PyTorch's derivatives.yaml), eagerly and compiled.
# expect: FmaxBackward0 [1.0, 0.0, 1.0, 0.0, 1.0] [0.0, 1.0, 0.0, 1.0, 0.0]
# expect: FminBackward0 [1.0, 0.0, 1.0, 1.0, 1.0] [0.0, 1.0, 0.0, 0.0, 0.0]
# expect: compiled [1.0, 0.0, 1.0, 0.0, 1.0] [0.0, 1.0, 0.0, 1.0, 0.0]
# expect graph_breaks: 0
import torch

nan = float('nan')


def inputs():
    x = torch.tensor([1.0, nan, nan, -2.0, 0.5], requires_grad=True)
    y = torch.tensor([nan, 3.0, nan, 4.0, 0.5], requires_grad=True)
    return x, y


for op in [torch.fmax, torch.fmin]:
    x, y = inputs()
    z = op(x, y)
    z.sum().backward()
    print(type(z.grad_fn).__name__, x.grad.tolist(), y.grad.tolist())


@torch.compile
def total(x, y):
    return torch.fmax(x, y).sum()


x, y = inputs()
total(x, y).backward()
print("compiled", x.grad.tolist(), y.grad.tolist())
