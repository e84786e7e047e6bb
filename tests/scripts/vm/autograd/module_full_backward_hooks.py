# nn.Module full backward hooks: a pre-hook sees and replaces grad_output, a full hook sees grad_input and the
# replaced grad_output and may replace grad_input; hooks removed by their handle; a module whose input needs no
# gradient calls its hook with grad_input (None,). In a compiled function the module call breaks the graph with
# Dynamo's reason (no compiled autograd) and the hooks still run.
# expect graph_breaks: 1
# expect log: Module-level backwards hooks require compiled autograd.
# expect: [('pre', [[1.0]]), ('post', [[10.0, 20.0]], [[10.0]])]
# expect: [[10.0, 20.0]] [[10.0, 10.0]]
# expect: [[2.0, 4.0]]
# expect: [(None,)]
# expect: [[4.0, 8.0]]
import torch
import torch.nn as nn

lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0]]))
    lin.bias.zero_()
seen = []


def pre(module, grad_output):
    seen.append(("pre", grad_output[0].tolist()))
    return (grad_output[0] * 10,)


def post(module, grad_input, grad_output):
    seen.append(("post", grad_input[0].tolist(), grad_output[0].tolist()))


h1 = lin.register_full_backward_pre_hook(pre)
h2 = lin.register_full_backward_hook(post)
x = torch.tensor([[1.0, 1.0]], requires_grad=True)
lin(x).sum().backward()
print(seen)
print(x.grad.tolist(), lin.weight.grad.tolist())

h1.remove()
h2.remove()
lin.register_full_backward_hook(lambda module, grad_input, grad_output: (grad_input[0] * 2,))
x.grad = None
lin(x).sum().backward()
print(x.grad.tolist())

lin2 = nn.Linear(2, 1)
got = []
lin2.register_full_backward_hook(lambda module, grad_input, grad_output: got.append(grad_input))
lin2(torch.ones(1, 2)).sum().backward()
print(got)


@torch.compile(backend="aot_eager")
def step(x):
    return lin(x * 2).sum()


x.grad = None
step(x).backward()
print(x.grad.tolist())
