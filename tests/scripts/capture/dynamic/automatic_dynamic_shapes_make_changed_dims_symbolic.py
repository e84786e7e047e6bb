# A size that changes between calls recompiles once with that dimension symbolic (automatic dynamic shapes);
# a third size reuses the symbolic graph.
# expect: 98.0
# expect compiles: 0/0 f, 0/1 f
# expect unique_graphs: 2
# expect graph: def forward(self, s0: "Sym(s0)", L_x_: "f32[2, s0][s0, 1]cpu"):
# expect graph: mul: "f32[s0][1]cpu" = sum_1 * s0
import torch


@torch.compile
def f(x):
    return x.sum(dim=0) * x.shape[1]


out = []
for n in [3, 5, 7]:
    out.append(f(torch.ones(2, n)))
print(out[2].sum().item())
