# An int argument is a constant of the first graph; when it changes, the recompile makes it a SymInt input.
# expect: 8.0
# expect compiles: 0/0 f, 0/1 f
# expect unique_graphs: 2
# expect graph: s0: "Sym(s0)"
import torch


@torch.compile
def f(x, k):
    return x * k


x = torch.ones(2)
results = [f(x, 2), f(x, 3), f(x, 4)]
print(results[2].sum().item())
