# A gradient penalty (torch.autograd.grad with create_graph=True, then a backward through the gradient): eagerly
# the gradient has history and the second backward gives d/dx sum((3x^2)^2) = 36x^3. Compiled, the call to
# torch.autograd.grad breaks the graph with Dynamo's reason (a skipped function) and runs eagerly through the
# compiled forward's CompiledFunctionBackward, whose gradients cannot be differentiated again: the second backward
# raises AOT Autograd's error, as in PyTorch, never a wrong gradient. First-order torch.autograd.grad works in both.
# expect: [3.0, 12.0, 27.0] [3.0, 12.0, 27.0]
# expect: [36.0, 288.0, 972.0]
# expect: RuntimeError torch.compile with aot_autograd does not currently support double backward
# expect graph_breaks: 2
# expect log: Attempted to call function marked as skipped
import torch


def first_order(x):
    y = (x ** 3).sum()
    g, = torch.autograd.grad(y, x)
    return g


def penalty(x):
    y = (x ** 3).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    return (g ** 2).sum()


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(first_order(x).tolist(), torch.compile(first_order)(x).tolist())
for fn in [penalty, torch.compile(penalty)]:
    x.grad = None
    try:
        fn(x).backward()
        print(x.grad.tolist())
    except RuntimeError as e:
        print(type(e).__name__, e)
