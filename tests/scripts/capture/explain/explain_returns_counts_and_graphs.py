# torch._dynamo.explain counts graphs, breaks and ops (torch.sin is an op; y.cos() is a method call, not one).
# expect: break
# expect: 2 1 1 1
# expect: Graph Count: 2
import torch


def f(x):
    y = torch.sin(x)
    print("break")
    return y.cos()


out = torch._dynamo.explain(f)(torch.ones(2))
print(out.graph_count, out.graph_break_count, out.op_count, len(out.break_reasons))
print(str(out).split("\n")[0])
