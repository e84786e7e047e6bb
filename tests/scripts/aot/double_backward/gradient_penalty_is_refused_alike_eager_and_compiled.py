# A gradient penalty (torch.autograd.grad with create_graph=True, then a backward through the gradient) needs
# higher-order gradients, which the cwb autograd does not compute: eagerly it raises, and compiled the call to
# torch.autograd.grad breaks the graph with Dynamo's reason (a skipped function) and then raises the same, so the
# compiled run never gives a result the eager one does not. First-order torch.autograd.grad works in both.
# expect: [3.0, 12.0, 27.0] [3.0, 12.0, 27.0]
# expect: NotImplementedError grad(create_graph=True): higher-order gradients are not supported by the cwb autograd
# expect: NotImplementedError grad(create_graph=True): higher-order gradients are not supported by the cwb autograd
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
    try:
        fn(x).backward()
        print(x.grad.tolist())
    except NotImplementedError as e:
        print(type(e).__name__, e)
