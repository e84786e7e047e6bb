# A dtype change, a changed global the graph read and a tensor that now requires grad each fail a guard of the
# entries before and recompile f, logged with Dynamo's reasons (the newest failed entry first).
# expect: 12.0 12.0 16.0
# expect compiles: 0/0 f, 0/1 f, 0/2 f, 0/3 f
# expect recompiles: 3
# expect log: [0/1] [__recompiles] Recompiling function f in capture/guards/a_failed_guard_recompiles_with_dynamos_reason.py:19
# expect log: [0/1] [__recompiles]     - 0/0: tensor 'x' dtype mismatch. expected Float, actual Double
# expect log: [0/2] [__recompiles]     - 0/1: tensor 'x' dtype mismatch. expected Double, actual Float
# expect log: [0/2] [__recompiles]     - 0/0: G['SCALE'] == 2.0      
# expect log: # return x * SCALE + n  # capture/guards/a_failed_guard_recompiles_with_dynamos_reason.py:21 in f
# expect log: [0/2] [__recompiles]     - User stack trace:
# expect log: [0/2] [__recompiles]     -   File "capture/guards/a_failed_guard_recompiles_with_dynamos_reason.py", line 21, in f
# expect log: [0/3] [__recompiles]     - 0/2: tensor 'x' requires_grad mismatch. expected requires_grad=0
import torch

SCALE = 2.0


@torch.compile
def f(x, n):
    return x * SCALE + n


x = torch.ones(4)
a = f(x, 1)
b = f(x, 1)
c = f(torch.ones(4, dtype=torch.float64), 1)
SCALE = 3.0
d = f(x, 1)
e = f(x.clone().requires_grad_(True), 1)
print(a.sum().item(), b.sum().item(), d.sum().item())
