# torch.func.grad / grad_and_value and vmap of grad in compiled code (eager backend): each grad call is one graph
# node, the frame one graph with no break, values equal to eager's; grad of a function that calls a user function (which
# might have side effects) breaks the graph ("HOP: Unsafe side effect") and runs eagerly.
# expect unique_graphs: 3
# expect graph_breaks: 1
# expect graph_code: torch.func.grad(l_w_, getitem)
# expect: True
# expect: [3.0, 3.0, 3.0]
import torch
from torch.func import grad, grad_and_value, vmap


def loss(w, x):
    return torch.tanh(x @ w).pow(2).sum()


def grads(w, xs):
    g = grad(loss)(w, xs[0])
    gv, value = grad_and_value(loss)(w, xs[1])
    per = vmap(grad(loss), in_dims=(None, 0))(w, xs)
    return [g, gv, value, per]


xs = torch.sin(torch.arange(12, dtype=torch.float32).reshape(4, 3))
w = torch.tensor([0.5, -1.0, 2.0])
print(all(torch.allclose(a, b) for a, b in zip(grads(w, xs), torch.compile(grads, backend="eager")(w, xs))))

def scale(w):
    return w * 3


def through_helper(w):
    return scale(w).sum()


@torch.compile(backend="eager")
def f(w):
    return grad(through_helper)(w * 2)


print(f(w).tolist())
