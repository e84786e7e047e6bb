# A tape-based reverse-mode autograd written in Python classes, run inside compiled code: variables with
# __add__/__mul__/__neg__ that record closures on a tape, gradients accumulated in a dict by name, and the tape
# walked in reverse; the compiled gradients equal torch.autograd's on the same expression.
import torch


class Tape:
    def __init__(self):
        self.entries = []
        self.counter = 0

    def fresh(self):
        self.counter += 1
        return "v" + str(self.counter)


class Var:
    def __init__(self, tape, value, name=None):
        self.tape = tape
        self.value = value
        self.name = name or tape.fresh()

    def _record(self, value, parents):
        out = Var(self.tape, value)
        self.tape.entries.append((out.name, parents))
        return out

    def __add__(self, other):
        return self._record(self.value + other.value, [(self.name, lambda g: g), (other.name, lambda g: g)])

    def __mul__(self, other):
        a, b = self.value, other.value
        return self._record(a * b, [(self.name, lambda g: g * b), (other.name, lambda g: g * a)])

    def __neg__(self):
        return self._record(-self.value, [(self.name, lambda g: -g)])

    def sin(self):
        a = self.value
        return self._record(a.sin(), [(self.name, lambda g: g * a.cos())])


def grads(tape, out):
    table = {out.name: torch.ones_like(out.value)}
    for name, parents in reversed(tape.entries):
        if name not in table:
            continue
        g = table[name]
        for parent, rule in parents:
            contribution = rule(g)
            table[parent] = table[parent] + contribution if parent in table else contribution
    return table


def forward_backward(x, y):
    tape = Tape()
    a = Var(tape, x, "a")
    b = Var(tape, y, "b")
    out = (a * b + a.sin()) * -b + a * a
    table = grads(tape, out)
    return out.value, table["a"], table["b"], len(tape.entries)


opt_fb = torch.compile(forward_backward, backend="eager")


def main(device):
    x = torch.linspace(-1.0, 1.0, 5, device=device)
    y = torch.linspace(0.5, 2.5, 5, device=device)
    value, ga, gb, n = opt_fb(x, y)
    xr = x.clone().requires_grad_()
    yr = y.clone().requires_grad_()
    ((xr * yr + xr.sin()) * -yr + xr * xr).sum().backward()
    return [value, ga, gb, torch.tensor([n], device=device), ga - xr.grad, gb - yr.grad]
