# F.batch_norm in training mode updates running_mean/running_var inside the op, a write functionalization cannot
# see: the capture breaks the graph there, so the statistics move once a call, as they do eagerly.
import torch
import torch.nn.functional as F


def step(x, running_mean, running_var):
    y = x * 2.0
    return F.batch_norm(y, running_mean, running_var, None, None, True, 0.1, 1e-5) + 1.0


compiled = torch.compile(step)
x = torch.arange(12.0).reshape(4, 3)
mean_eager, var_eager = torch.zeros(3), torch.ones(3)
mean_compiled, var_compiled = torch.zeros(3), torch.ones(3)
for _ in range(2):
    eager = step(x, mean_eager, var_eager)
    out = compiled(x, mean_compiled, var_compiled)
print(torch.equal(eager, out), torch.equal(mean_eager, mean_compiled), torch.equal(var_eager, var_compiled))
# expect: True True True
print([round(v, 4) for v in mean_compiled.tolist()])
# expect: [1.71, 2.09, 2.47]
# expect graph_breaks: 1
