# A dataclass (with an inherited field and a default_factory) built inside the compiled function is traced
# through the dataclasses module's generated __init__ and __eq__: one graph, no break, no recompile on the second
# call (the module's own globals are guarded through it, not through the script's globals).
# expect: 3.0
# expect: 3.0
# expect: True
# expect graph_breaks: 0
# expect unique_graphs: 1
# expect recompiles: 0
from dataclasses import dataclass, field

import torch


@dataclass
class Base:
    a: int
    b: int


@dataclass
class Derived(Base):
    extra: list = field(default_factory=list)


@torch.compile(backend="eager", fullgraph=True)
def f(x):
    d = Derived(1, 2)
    return (d.a + d.b) * x, d == Derived(1, 2)


print(f(torch.ones(1))[0][0].item())
out, same = f(torch.ones(1))
print(out[0].item())
print(same)
