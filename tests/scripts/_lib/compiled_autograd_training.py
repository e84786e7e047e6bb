# A training step whose backward runs inside the compiled function, for the compiled autograd programs
# (torch._dynamo.config.compiled_autograd): three SGD steps of the MLP eagerly and compiled, and the counters.
import torch
from _lib.models import MLP


def mse(out, y):
    return ((out - y) ** 2).mean()


def backward_once(loss):
    loss.backward()


def train(fn, x, y, reset_before_last=False):
    """Three steps of fn(model, x, y) -> (loss, out): each loss, output and gradient, then the parameters;
    reset_before_last calls torch._dynamo.reset() and runs one step more before the parameters are read."""
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    values = []
    for i in range(3):
        opt.zero_grad()
        loss, out = fn(model, x, y)
        values.append(loss.detach())
        values.append(out.detach())
        for p in model.parameters():
            values.append(p.grad.clone())
        opt.step()
    if reset_before_last:
        torch._dynamo.reset()
        fn(model, x, y)
    for p in model.parameters():
        values.append(p.detach().clone())
    return values


def eager_and_compiled_steps(backend, compiled_autograd, loss_of=mse, backward=backward_once, reset_before_last=False):
    """[eager values, compiled values] of the step run eagerly and compiled with backend, compiled_autograd set."""
    def step(model, x, y):
        out = model(x)
        loss = loss_of(out, y)
        backward(loss)
        return loss, out

    torch._dynamo.config.compiled_autograd = compiled_autograd
    torch.manual_seed(1)
    x = torch.randn(8, 16)
    y = torch.randn(8, 8)
    return [train(step, x, y, reset_before_last), train(torch.compile(step, backend=backend), x, y, reset_before_last)]


def compiled_autograd_counts():
    """(captures, compiles) of torch._dynamo.utils.counters["compiled_autograd"]."""
    counts = torch._dynamo.utils.counters["compiled_autograd"]
    return counts["captures"], counts["compiles"]
