# Symbolic sizes in printed graphs: the symbol travels on the dimension that became dynamic, so after the recompile
# makes dim 0 of x dynamic (s0, hint 4), x's dim 1 and b's only dim, also 4, still print as static 4s.
# expect: True
# expect unique_graphs: 2
# expect recompiles: 1
# expect graph: L_x_: "f32[s0, 4][4, 1]cpu"
# expect graph: L_b_: "f32[4][1]cpu"
# expect graph: mul: "f32[s0, 4][4, 1]cpu"
# expect graph: add: "f32[s0, 4][4, 1]cpu"
import torch


@torch.compile
def f(x, b):
    return x * 2.0 + b


b = torch.ones(4)
f(torch.ones(3, 4), b)
print(torch.equal(f(torch.ones(4, 4), b), torch.ones(4, 4) * 2.0 + b))
