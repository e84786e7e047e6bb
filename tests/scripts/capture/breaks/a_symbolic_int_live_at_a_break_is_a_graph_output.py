# After a recompile makes the int argument symbolic (automatic dynamic), a break with it on the stack and no op
# traced yet still compiles a graph: Dynamo rebuilds a symbolic int from the graph's outputs, not from its source.
# The exception raised by the class whose super().__init__ breaks reaches the caller with this call's value.
# expect: [2.0, 2.0]
# expect: caught 5
# expect graph_breaks: 1
# expect unique_graphs: 2
# expect recompiles: 1
import torch


class Budget(Exception):
    def __init__(self, spent, limit):
        super().__init__(spent, limit)
        self.spent = spent


@torch.compile(backend="eager")
def escapes(x, n):
    if n > 1:
        raise Budget(n, 1)
    return x + n


print(escapes(torch.ones(2), 1).tolist())
try:
    escapes(torch.ones(2), 5)
except Budget as b:
    print("caught", b.spent)
